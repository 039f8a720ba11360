package io.taskfence.handlers.builtin;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientResponse;

/**
 * Keeps the first {@code limit} bytes of a response body and stops reading there, so that a large answer
 * costs no more memory than that. Its handlers run on the response's event loop, one at a time.
 */
final class BoundedBody {

    /** What was kept, and whether the body went on beyond it. */
    record Bytes(byte[] bytes, boolean truncated) {
    }

    private final HttpClientResponse response;
    private final int limit;
    private final Buffer kept = Buffer.buffer();
    private final Promise<Bytes> body = Promise.promise();

    private BoundedBody(HttpClientResponse response, int limit) {
        this.response = response;
        this.limit = limit;
    }

    /** Reads {@code response}'s body; call it as soon as the response arrives, before its body does. */
    static Future<Bytes> read(HttpClientResponse response, int limit) {
        BoundedBody reader = new BoundedBody(response, limit);
        response.exceptionHandler(reader.body::tryFail);
        response.endHandler(end -> reader.body.tryComplete(new Bytes(reader.kept.getBytes(), false)));
        response.handler(reader::append);
        return reader.body.future();
    }

    private void append(Buffer chunk) {
        if (body.future().isComplete()) {
            return;
        }
        int room = limit - kept.length();
        if (chunk.length() > room) {
            kept.appendBuffer(chunk, 0, room);
            body.tryComplete(new Bytes(kept.getBytes(), true));
            response.request().reset(); // closes the connection rather than read the rest
            return;
        }
        kept.appendBuffer(chunk);
    }
}
