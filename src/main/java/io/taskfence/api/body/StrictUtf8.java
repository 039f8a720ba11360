package io.taskfence.api.body;

import java.io.ByteArrayInputStream;
import java.io.DataInput;
import java.io.IOException;
import java.io.InputStream;
import java.io.Reader;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

import jakarta.ws.rs.core.Response.Status;

import com.fasterxml.jackson.core.io.IOContext;
import com.fasterxml.jackson.core.io.InputDecorator;

import io.taskfence.api.problem.Problems;

/**
 * Bytes must be well-formed UTF-8 before Jackson reads them: Jackson's own decoder takes an overlong form
 * ("C0 AF" is read as '/') and an encoded surrogate, so it would store what the client did not send. The
 * JDK's decoder refuses both; bodies are at most quarkus.http.limits.max-body-size, so one copy is cheap.
 * A decorator of the mapper's input ({@link StrictJson}), not a JAX-RS {@code ReaderInterceptor}: with one
 * installed, Quarkus REST reads the resource method's annotations by reflection on every request.
 */
final class StrictUtf8 extends InputDecorator {

    private static final long serialVersionUID = 1L;

    @Override
    public InputStream decorate(IOContext context, InputStream in) throws IOException {
        byte[] body = in.readAllBytes();
        refuseIfMalformed(body, 0, body.length);
        return new ByteArrayInputStream(body);
    }

    /** Checked in place; null leaves Jackson reading the array itself. */
    @Override
    public InputStream decorate(IOContext context, byte[] src, int offset, int length) {
        refuseIfMalformed(src, offset, length);
        return null;
    }

    /** Nothing the service reads comes as a DataInput; Jackson's default would refuse one outright. */
    @Override
    public DataInput decorate(IOContext context, DataInput input) {
        return input;
    }

    /** Characters were decoded by whoever made them (a String from PostgreSQL, say): nothing to check. */
    @Override
    public Reader decorate(IOContext context, Reader reader) {
        return reader;
    }

    private static void refuseIfMalformed(byte[] bytes, int offset, int length) {
        try {
            StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes, offset, length));
        } catch (CharacterCodingException e) {
            throw Problems.of(Status.BAD_REQUEST,
                    "the body is not valid JSON: it is not well-formed UTF-8 (" + e.getMessage() + ")");
        }
    }
}
