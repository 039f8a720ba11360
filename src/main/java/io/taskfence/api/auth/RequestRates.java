package io.taskfence.api.auth;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

import jakarta.enterprise.context.ApplicationScoped;

import org.jboss.logging.Logger;
import org.jboss.resteasy.reactive.server.ServerRequestFilter;

import io.quarkus.redis.datasource.RedisDataSource;
import io.quarkus.security.identity.SecurityIdentity;
import io.taskfence.TaskfenceConfig;
import io.taskfence.lock.LuaScript;
import io.taskfence.types.Rate;
import io.vertx.mutiny.redis.client.Response;

/**
 * How many requests each API key may make: {@code taskfence.auth.keys.<name>.rate}, else {@code taskfence.auth.rate},
 * else no limit (DESIGN.md, "REST API", "Request rates"). One token bucket a key in Redis, shared by every replica
 * ({@code ratelimit/take.lua}); every API request of the key takes a token before its resource method runs, and a
 * batch one more per task beyond the first. A request refused is answered 429 with {@code Retry-After}
 * ({@link RequestRateExceeded}) and has done nothing. If Redis cannot be reached, requests go through (warned):
 * the limit guards the service's capacity, and an outage of its shared counter should not also stop the API.
 */
@ApplicationScoped
public class RequestRates {

    private static final Logger LOG = Logger.getLogger(RequestRates.class);
    private static final long WARN_EVERY_MILLIS = 10_000;

    private final LuaScript take = LuaScript.load("ratelimit/take.lua");
    private final RedisDataSource redis;
    private final SecurityIdentity identity;
    private final String prefix;
    private final Map<String, Rate> rates = new HashMap<>();
    private final Optional<Rate> otherwise;
    private final AtomicLong lastWarned = new AtomicLong();

    RequestRates(RedisDataSource redis, SecurityIdentity identity, TaskfenceConfig config) {
        this.redis = redis;
        this.identity = identity;
        this.prefix = config.keyPrefix() + ":rate:";
        config.auth().keys().forEach((name, key) -> key.rate().ifPresent(rate -> rates.put(name, Rate.parse(rate))));
        this.otherwise = config.auth().rate().map(Rate::parse);
    }

    /** Every API request of a key with a rate takes a token, on the thread its resource method will run on. */
    @ServerRequestFilter
    void takeOnePerRequest() {
        String key = KeyOwner.of(identity).name();
        if (key != null) {
            take(key, 1);
        }
    }

    /**
     * The rest of a batch's cost: one token per task, of which its request took one already.
     *
     * @throws RequestRateExceeded if the key's bucket has not that many tokens, or could never hold them
     */
    public void takeForBatch(String key, int tasks) {
        Optional<Rate> rate = rateOf(key);
        if (rate.isEmpty() || tasks <= 1) {
            return;
        }
        if (tasks > rate.get().starts()) {
            throw new RequestRateExceeded("a batch of " + tasks + " tasks is more than API key '" + key + "' may send at "
                    + "once (its rate is " + rate.get() + ", and a batch counts its tasks): send batches of at most "
                    + rate.get().starts() + " tasks", 0);
        }
        take(key, tasks - 1, 1);
    }

    private void take(String key, int tokens) {
        take(key, tokens, 0);
    }

    /**
     * Takes {@code tokens}; if refused, the Retry-After also covers {@code alsoNeeded} more, which the request will
     * take again when it is sent again (a batch's own request token).
     */
    private void take(String key, int tokens, int alsoNeeded) {
        Optional<Rate> rate = rateOf(key);
        if (rate.isEmpty()) {
            return;
        }
        Response reply;
        try {
            reply = take.run(redis, List.of(prefix + key), Integer.toString(rate.get().starts()),
                    Long.toString(rate.get().window().toMillis()), Integer.toString(tokens));
        } catch (RuntimeException unreachable) {
            long now = System.currentTimeMillis();
            long last = lastWarned.get();
            if (now - last >= WARN_EVERY_MILLIS && lastWarned.compareAndSet(last, now)) {
                LOG.warnf("request rates are not enforced while Redis cannot be reached (%s); requests go through",
                        unreachable.toString());
            }
            return;
        }
        if (reply.get(0).toInteger() != 1) {
            long waitMillis = reply.get(1).toLong();
            if (waitMillis < 0) {
                throw new RequestRateExceeded("a request of " + tokens + " tokens is more than API key '" + key
                        + "' may make at once (its rate is " + rate.get() + ")", 0);
            }
            waitMillis += alsoNeeded * rate.get().window().toMillis() / rate.get().starts();
            throw new RequestRateExceeded("API key '" + key + "' may make " + rate.get() + " requests (a batch counts "
                    + "its tasks); this one would exceed that, so it was not handled. Try again after Retry-After",
                    (int) Math.max(1, (waitMillis + 999) / 1000));
        }
    }

    private Optional<Rate> rateOf(String key) {
        Rate own = rates.get(key);
        return own != null ? Optional.of(own) : otherwise;
    }
}
