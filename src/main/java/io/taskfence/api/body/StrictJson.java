package io.taskfence.api.body;

import java.io.IOException;
import java.time.DateTimeException;
import java.time.Instant;

import jakarta.inject.Singleton;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamWriteConstraints;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.cfg.CoercionAction;
import com.fasterxml.jackson.databind.cfg.CoercionInputShape;
import com.fasterxml.jackson.databind.cfg.JsonNodeFeature;
import com.fasterxml.jackson.databind.deser.std.StdScalarDeserializer;
import com.fasterxml.jackson.databind.exc.InvalidFormatException;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.datatype.jsr310.deser.InstantDeserializer;

import io.quarkus.jackson.ObjectMapperCustomizer;

/**
 * The application's one ObjectMapper reads JSON as it was sent or refuses it (DESIGN.md, "REST API", "JSON"):
 * a request field takes only its own JSON type (no 1.5 or "3" for an integer, no 3 for a string, no ""
 * for absent, no number for an instant), a duplicate key or anything after the value is an error, and a
 * payload's numbers keep every digit and their scale. The same mapper reads payloads back from PostgreSQL
 * and an http handler's answers, which these rules leave as they are.
 */
@Singleton
final class StrictJson implements ObjectMapperCustomizer {

    /** Jackson's own default, stated: a deeper document is refused with a 400. */
    static final int MAX_DEPTH = 1000;
    /** A task of the deepest payload read is written inside a page or batch answer, a few levels deeper. */
    private static final int MAX_WRITE_DEPTH = MAX_DEPTH + 10;

    /** After Quarkus's own customizer, whose JavaTimeModule would otherwise replace {@link IsoInstant}. */
    @Override
    public int priority() {
        return MINIMUM_PRIORITY;
    }

    @Override
    public void customize(ObjectMapper mapper) {
        for (CoercionInputShape shape : new CoercionInputShape[] { CoercionInputShape.Integer, CoercionInputShape.Float,
                CoercionInputShape.Boolean, CoercionInputShape.String, CoercionInputShape.EmptyString }) {
            mapper.coercionConfigDefaults().setCoercion(shape, CoercionAction.Fail);
        }
        mapper.enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
        mapper.enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);
        // The token a value was refused at stays readable once the parser closed: the problem says what was sent.
        mapper.disable(JsonParser.Feature.CLEAR_CURRENT_TOKEN_ON_CLOSE);
        // A double would turn 1e400 into Infinity (written as invalid JSON) and 0.1000000000000000001 into 0.1.
        mapper.enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);
        mapper.configure(JsonNodeFeature.STRIP_TRAILING_BIGDECIMAL_ZEROES, false);
        mapper.getFactory().setInputDecorator(new StrictUtf8());
        mapper.getFactory().setStreamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(MAX_DEPTH).build());
        mapper.getFactory().setStreamWriteConstraints(
                StreamWriteConstraints.builder().maxNestingDepth(MAX_WRITE_DEPTH).build());
        mapper.registerModule(new SimpleModule("taskfence-strict-json").addDeserializer(Instant.class, new IsoInstant()));
    }

    /**
     * An instant only from an ISO-8601 string: Jackson's own reads any number as epoch seconds (or millis),
     * which is what a client that meant something else sent, and its coercion settings do not reach it.
     */
    private static final class IsoInstant extends StdScalarDeserializer<Instant> {

        IsoInstant() {
            super(Instant.class);
        }

        @Override
        public Instant deserialize(JsonParser parser, DeserializationContext context) throws IOException {
            if (!parser.hasToken(JsonToken.VALUE_STRING)) {
                return (Instant) context.handleUnexpectedToken(Instant.class, parser.currentToken(), parser,
                        "an instant must be an ISO-8601 string such as \"2030-01-01T00:00:00Z\"");
            }
            String text = parser.getText();
            try {
                return InstantDeserializer.INSTANT.deserialize(parser, context);
            } catch (JsonMappingException | DateTimeException e) {
                // Jackson's message names java.time.Instant and the parser's exception: not the API's language.
                throw InvalidFormatException.from(parser, "\"" + text + "\" is not an instant: send an ISO-8601 "
                        + "date and time with its offset, such as \"2030-01-01T00:00:00Z\"", text, Instant.class);
            }
        }
    }
}
