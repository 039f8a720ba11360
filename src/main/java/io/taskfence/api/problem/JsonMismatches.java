package io.taskfence.api.problem;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Instant;
import java.util.Arrays;
import java.util.Collection;
import java.util.UUID;
import java.util.stream.Collectors;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.exc.InputCoercionException;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.exc.InvalidFormatException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * A value of a body that does not fit its field, told in the API's words: what the field takes and what was sent
 * ("expected a UUID string ..., got a number"). Jackson's own messages name the Java types the fields are bound to
 * ({@code java.util.UUID}, the request's record), which are no part of the API, so none of their text is used.
 */
final class JsonMismatches {

    private static final int SHOWN = 40;

    private JsonMismatches() {
    }

    /** What a field of this Java type takes: a name for a value of the wrong form, and how to send a right one. */
    private record Expected(String noun, String form) {
    }

    /** The mismatch of {@code e} in the API's words, without the field (the caller names it). */
    static String explain(JsonMappingException e) {
        if (e.getCause() instanceof InputCoercionException range) {
            return "expected " + expected(range.getTargetType()).form() + " within " + range(range.getTargetType())
                    + ", got a number out of that range";
        }
        if (e.getCause() instanceof JsonProcessingException syntax && !(syntax instanceof JsonMappingException)) {
            return plain(syntax); // the JSON itself, inside a field: a duplicate key, a limit of the parser
        }
        Expected expected = expected(e instanceof MismatchedInputException mismatched ? mismatched.getTargetType() : null);
        JsonToken token = token(e);
        if (e instanceof InvalidFormatException invalid && invalid.getValue() instanceof String text
                && token == JsonToken.VALUE_STRING) {
            return shown(text) + " is not " + expected.noun() + ": send " + expected.form();
        }
        return "expected " + expected.form() + ", got " + sent(e);
    }

    /**
     * The parser's message about the JSON itself (its syntax, a duplicate key, a limit), without where in its
     * source it started nor which of Jackson's settings would allow it or holds the limit.
     */
    static String plain(JsonProcessingException e) {
        return e.getOriginalMessage().replaceAll("\\s*\\(start marker at \\[Source: .*?\\]\\)", "")
                .replaceAll(",\\s*from `[^`]*`", "")
                .replaceAll(":?\\s*enable `[^`]*` to allow", "")
                .replaceAll("\\s*\\(not recognized as one since Feature '[^']*' not enabled for parser\\)", "")
                .replaceAll("`[^`\\s]*`", "a setting of the parser");
    }

    private static Expected expected(Class<?> type) {
        if (type == null) {
            return new Expected("a value of this field's type", "a value of this field's type");
        }
        if (type == UUID.class) {
            return new Expected("a UUID", "a UUID string of 8-4-4-4-12 hex digits, such as "
                    + "\"7d0c4b5e-0000-4000-8000-000000000000\"");
        }
        if (type == Instant.class) {
            return new Expected("an instant", "an ISO-8601 date and time with its offset, such as \"2030-01-01T00:00:00Z\"");
        }
        if (CharSequence.class.isAssignableFrom(type)) {
            return new Expected("a string", "a string");
        }
        if (type == Integer.class || type == int.class || type == Long.class || type == long.class
                || type == Short.class || type == short.class || type == BigInteger.class) {
            return new Expected("an integer", "an integer");
        }
        if (Number.class.isAssignableFrom(type) || type == BigDecimal.class || type.isPrimitive() && type != boolean.class) {
            return new Expected("a number", "a number");
        }
        if (type == Boolean.class || type == boolean.class) {
            return new Expected("true or false", "true or false");
        }
        if (type.isEnum()) {
            String names = Arrays.stream(type.getEnumConstants()).map(constant -> "\"" + constant + "\"")
                    .collect(Collectors.joining(", "));
            return new Expected("one of " + names, "one of " + names);
        }
        if (type.isArray() || Collection.class.isAssignableFrom(type)) {
            return new Expected("an array", "an array");
        }
        if (ArrayNode.class.isAssignableFrom(type)) {
            return new Expected("an array", "an array");
        }
        if (JsonNode.class.isAssignableFrom(type) && !ObjectNode.class.isAssignableFrom(type)) {
            return new Expected("a JSON value", "a JSON value");
        }
        // A request's record, a map, an ObjectNode (a schema).
        return new Expected("an object", "a JSON object");
    }

    /** What kind of JSON value the client sent where the mismatch was found. */
    static String sent(JsonMappingException e) {
        JsonToken token = token(e);
        return token == null ? "a value of another kind" : switch (token) {
            case VALUE_STRING -> "a string";
            case VALUE_NUMBER_INT -> "an integer";
            case VALUE_NUMBER_FLOAT -> "a number with a fraction or an exponent";
            case VALUE_TRUE -> "true";
            case VALUE_FALSE -> "false";
            case VALUE_NULL -> "null";
            case START_ARRAY, END_ARRAY -> "an array";
            case START_OBJECT, END_OBJECT, FIELD_NAME -> "an object";
            default -> "a value of another kind";
        };
    }

    /** The token the parser stopped at (kept after it closed: StrictJson turns off clearing it). */
    private static JsonToken token(JsonMappingException e) {
        return e.getProcessor() instanceof JsonParser parser ? parser.currentToken() : null;
    }

    private static String range(Class<?> type) {
        return type == long.class || type == Long.class ? Long.MIN_VALUE + " to " + Long.MAX_VALUE
                : type == short.class || type == Short.class ? Short.MIN_VALUE + " to " + Short.MAX_VALUE
                : Integer.MIN_VALUE + " to " + Integer.MAX_VALUE;
    }

    private static String shown(String text) {
        return "\"" + cut(text) + "\"";
    }

    private static String cut(String text) {
        return text.length() <= SHOWN ? text : text.substring(0, SHOWN) + "...";
    }
}
