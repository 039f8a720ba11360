package io.taskfence.api.auth;

/**
 * A request refused by its key's request rate ({@link RequestRates}) or by a cap on what its key may hold at once
 * ({@link HeldPerKey}): answered 429, with {@code Retry-After} unless waiting cannot help (a batch larger than the
 * key's bucket).
 *
 * @param retryAfterSeconds seconds until the request would fit; 0 if it never will as sent
 */
public final class RequestRateExceeded extends RuntimeException {

    private final int retryAfterSeconds;

    RequestRateExceeded(String detail, int retryAfterSeconds) {
        super(detail, null, false, false);
        this.retryAfterSeconds = retryAfterSeconds;
    }

    public int retryAfterSeconds() {
        return retryAfterSeconds;
    }
}
