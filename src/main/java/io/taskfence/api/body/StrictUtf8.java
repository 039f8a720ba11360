package io.taskfence.api.body;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

import jakarta.ws.rs.core.Response.Status;
import jakarta.ws.rs.ext.Provider;
import jakarta.ws.rs.ext.ReaderInterceptor;
import jakarta.ws.rs.ext.ReaderInterceptorContext;

import io.taskfence.api.problem.Problems;

/**
 * A body must be well-formed UTF-8 before Jackson reads it: Jackson's own decoder takes an overlong form
 * ("C0 AF" is read as '/') and an encoded surrogate, so it would store what the client did not send. The
 * JDK's decoder refuses both; bodies are at most quarkus.http.limits.max-body-size, so one copy is cheap.
 */
@Provider
public final class StrictUtf8 implements ReaderInterceptor {

    @Override
    public Object aroundReadFrom(ReaderInterceptorContext context) throws IOException {
        byte[] body = context.getInputStream().readAllBytes();
        try {
            StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(body));
        } catch (CharacterCodingException e) {
            throw Problems.of(Status.BAD_REQUEST,
                    "the body is not valid JSON: it is not well-formed UTF-8 (" + e.getMessage() + ")");
        }
        context.setInputStream(new ByteArrayInputStream(body));
        return context.proceed();
    }
}
