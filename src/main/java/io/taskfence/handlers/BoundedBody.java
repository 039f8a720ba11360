package io.taskfence.handlers;

import java.io.ByteArrayOutputStream;
import java.net.http.HttpResponse.BodySubscriber;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;

/**
 * Keeps the first {@code limit} bytes of a response body and stops reading there, so that a large answer
 * costs no more memory than that.
 */
final class BoundedBody implements BodySubscriber<BoundedBody.Bytes> {

    /** What was kept, and whether the body went on beyond it. */
    record Bytes(byte[] bytes, boolean truncated) {
    }

    private final int limit;
    private final ByteArrayOutputStream kept = new ByteArrayOutputStream();
    private final CompletableFuture<Bytes> body = new CompletableFuture<>();
    private Flow.Subscription subscription;

    BoundedBody(int limit) {
        this.limit = limit;
    }

    @Override
    public void onSubscribe(Flow.Subscription subscription) {
        this.subscription = subscription;
        subscription.request(1);
    }

    @Override
    public void onNext(List<ByteBuffer> buffers) {
        for (ByteBuffer buffer : buffers) {
            int room = limit - kept.size();
            if (buffer.remaining() > room) {
                byte[] part = new byte[room];
                buffer.get(part);
                kept.writeBytes(part);
                subscription.cancel(); // the client closes the connection rather than read the rest
                body.complete(new Bytes(kept.toByteArray(), true));
                return;
            }
            byte[] all = new byte[buffer.remaining()];
            buffer.get(all);
            kept.writeBytes(all);
        }
        subscription.request(1);
    }

    @Override
    public void onError(Throwable failure) {
        body.completeExceptionally(failure);
    }

    @Override
    public void onComplete() {
        body.complete(new Bytes(kept.toByteArray(), false));
    }

    @Override
    public CompletionStage<Bytes> getBody() {
        return body;
    }
}
