package io.taskfence.task;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Optional;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * The rules a JSON value must meet to be stored in a task's row and read back as it was (DESIGN.md, "REST API",
 * "JSON"): a submission's payload is refused with a 400 when it breaks one, and a handler's result fails only its
 * own task (a result PostgreSQL refuses would fail the statement that writes a batch of other tasks' results).
 */
public final class StorableJson {

    /** The most bytes of JSON (UTF-8) a payload may take. */
    public static final int MAX_BYTES = 64 * 1024;
    /**
     * The most bytes of JSON (UTF-8) a handler's result may take: the most a request body may (the API reads no
     * more), well above what the {@code http} handler keeps of an answer (64 KiB, escaped and wrapped).
     */
    public static final int MAX_RESULT_BYTES = 1024 * 1024;
    /** Jackson's longest number (StreamReadConstraints), which a value read back from PostgreSQL must fit. */
    public static final int MAX_NUMBER_DIGITS = 1000;
    /** The deepest nesting the application's mapper reads (and so the deepest a stored value can be read back at). */
    public static final int MAX_DEPTH = 1000;

    private StorableJson() {
    }

    /**
     * Why {@code result} cannot be stored as a task's result, if it cannot ("it contains ..." what a payload may not
     * hold, {@link #firstProblem}, or "it is N bytes of JSON ..." over {@value #MAX_RESULT_BYTES}); empty if it can.
     */
    public static Optional<String> resultProblem(JsonNode result) {
        if (result == null || result.isNull()) {
            return Optional.empty();
        }
        Optional<String> problem = firstProblem(result, "result");
        if (problem.isPresent()) {
            return problem.map(what -> "it contains " + what);
        }
        int bytes = result.toString().getBytes(StandardCharsets.UTF_8).length;
        return bytes <= MAX_RESULT_BYTES ? Optional.empty()
                : Optional.of("it is " + bytes + " bytes of JSON; at most " + MAX_RESULT_BYTES + " are kept");
    }

    /**
     * The first value under {@code value} that jsonb cannot hold as sent, and where it is (e.g. "at
     * payload.a[2]"): U+0000 in a string or key (jsonb refuses it), an unpaired surrogate (the driver would
     * store '?' instead), a number of more than {@value #MAX_NUMBER_DIGITS} digits written out (PostgreSQL
     * keeps 1e400 as 401 digits, and Jackson reads no longer number back; 1e200000 overflows jsonb's numeric),
     * or nesting deeper than {@value #MAX_DEPTH}.
     */
    public static Optional<String> firstProblem(JsonNode value, String path) {
        return firstProblem(value, path, 1);
    }

    private static Optional<String> firstProblem(JsonNode value, String path, int depth) {
        if (value.isTextual()) {
            return unstorableText(value.textValue()).map(what -> what + " (at " + path + ")");
        }
        if (value.isBigDecimal() || value.isBigInteger()) {
            // Counted, not written out: 1e2147483647 would be two billion digits.
            BigDecimal number = value.decimalValue();
            long scale = number.scale();
            long digits = scale <= 0 ? number.precision() - scale : Math.max(number.precision(), scale + 1);
            return digits <= MAX_NUMBER_DIGITS ? Optional.empty() : Optional.of("a number of more than "
                    + MAX_NUMBER_DIGITS + " digits written out (" + digits + " at " + path + ")");
        }
        if ((value.isArray() || value.isObject()) && depth > MAX_DEPTH) {
            return Optional.of("nesting deeper than " + MAX_DEPTH + " levels (at " + path + ")");
        }
        if (value.isArray()) {
            for (int i = 0; i < value.size(); i++) {
                Optional<String> found = firstProblem(value.get(i), path + "[" + i + "]", depth + 1);
                if (found.isPresent()) {
                    return found;
                }
            }
        }
        if (value.isObject()) {
            for (Map.Entry<String, JsonNode> field : value.properties()) {
                Optional<String> key = unstorableText(field.getKey());
                if (key.isPresent()) {
                    return Optional.of(key.get() + " (in a key of " + path + ")");
                }
                Optional<String> found = firstProblem(field.getValue(), path + "." + field.getKey(), depth + 1);
                if (found.isPresent()) {
                    return found;
                }
            }
        }
        return Optional.empty();
    }

    private static Optional<String> unstorableText(String text) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '\0') {
                return Optional.of("the character U+0000");
            }
            if (Character.isHighSurrogate(c) && i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                return Optional.of(String.format("an unpaired surrogate (U+%04X)", (int) c));
            }
        }
        return Optional.empty();
    }
}
