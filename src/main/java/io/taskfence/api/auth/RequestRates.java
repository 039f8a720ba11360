package io.taskfence.api.auth;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

import jakarta.enterprise.context.ApplicationScoped;

import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;
import org.jboss.resteasy.reactive.server.ServerRequestFilter;

import io.quarkus.redis.datasource.ReactiveRedisDataSource;
import io.quarkus.redis.datasource.RedisDataSource;
import io.quarkus.runtime.BlockingOperationControl;
import io.quarkus.security.identity.SecurityIdentity;
import io.smallrye.mutiny.Uni;
import io.taskfence.TaskfenceConfig;
import io.taskfence.keys.KeyDirectory;
import io.taskfence.keys.KeySettings;
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
    private final ReactiveRedisDataSource reactiveRedis;
    private final Duration redisTimeout;
    private final SecurityIdentity identity;
    private final String prefix;
    private final KeyDirectory keys;
    private final AtomicLong lastWarned = new AtomicLong();

    RequestRates(RedisDataSource redis, ReactiveRedisDataSource reactiveRedis, SecurityIdentity identity,
            TaskfenceConfig config, KeyDirectory keys,
            @ConfigProperty(name = "quarkus.redis.timeout", defaultValue = "10s") Duration redisTimeout) {
        this.redis = redis;
        this.reactiveRedis = reactiveRedis;
        this.redisTimeout = redisTimeout;
        this.identity = identity;
        this.prefix = config.keyPrefix() + ":rate:";
        this.keys = keys;
    }

    /**
     * Every API request of a key with a rate takes a token before its resource method runs: on a worker thread as a
     * blocking call; on an event loop (a single submission's) without holding it while Redis answers.
     */
    @ServerRequestFilter
    Uni<Void> takeOnePerRequest() {
        String key = KeyOwner.of(identity).name();
        Optional<Rate> rate = key == null ? Optional.empty() : rateOf(key);
        if (rate.isEmpty()) {
            return Uni.createFrom().voidItem();
        }
        if (BlockingOperationControl.isBlockingAllowed()) {
            take(key, 1);
            return Uni.createFrom().voidItem();
        }
        return take.run(reactiveRedis, List.of(prefix + key), arguments(rate.get(), 1))
                .ifNoItem().after(redisTimeout).fail()
                .onItem().invoke(reply -> refuseIfOver(reply, key, rate.get(), 1, 0))
                .onFailure(failure -> !(failure instanceof RequestRateExceeded)).recoverWithUni(failure -> {
                    Optional<RequestRateExceeded> busy = poolBusy(failure, key);
                    if (busy.isPresent()) {
                        return Uni.createFrom().failure(busy.get());
                    }
                    warnUnenforced(failure);
                    return Uni.createFrom().nullItem();
                }).replaceWithVoid();
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
            reply = take.run(redis, List.of(prefix + key), arguments(rate.get(), tokens));
        } catch (RuntimeException unreachable) {
            Optional<RequestRateExceeded> busy = poolBusy(unreachable, key);
            if (busy.isPresent()) {
                throw busy.get();
            }
            warnUnenforced(unreachable);
            return;
        }
        refuseIfOver(reply, key, rate.get(), tokens, alsoNeeded);
    }

    private static String[] arguments(Rate rate, int tokens) {
        return new String[] { Integer.toString(rate.starts()), Long.toString(rate.window().toMillis()),
                Integer.toString(tokens) };
    }

    /** Throws {@link RequestRateExceeded} if take.lua's {@code reply} refused the tokens. */
    private static void refuseIfOver(Response reply, String key, Rate rate, int tokens, int alsoNeeded) {
        if (reply.get(0).toInteger() != 1) {
            long waitMillis = reply.get(1).toLong();
            if (waitMillis < 0) {
                throw new RequestRateExceeded("a request of " + tokens + " tokens is more than API key '" + key
                        + "' may make at once (its rate is " + rate + ")", 0);
            }
            waitMillis += alsoNeeded * rate.window().toMillis() / rate.starts();
            throw new RequestRateExceeded("API key '" + key + "' may make " + rate + " requests (a batch counts "
                    + "its tasks); this one would exceed that, so it was not handled. Try again after Retry-After",
                    (int) Math.max(1, (waitMillis + 999) / 1000));
        }
    }

    /**
     * The refusal when Redis answers but more of this replica's requests wait for a connection than its pool queues:
     * a burst, which is when the limit matters most, so it is refused (429, try again in a second), not let through
     * uncounted; empty for any other failure.
     */
    private static Optional<RequestRateExceeded> poolBusy(Throwable failure, String key) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause.getMessage() != null && cause.getMessage().contains("max wait queue size")) {
                return Optional.of(new RequestRateExceeded("too many requests of API key '" + key + "' at once for its "
                        + "rate to be counted; try again after Retry-After", 1));
            }
        }
        return Optional.empty();
    }

    private void warnUnenforced(Throwable unreachable) {
        long now = System.currentTimeMillis();
        long last = lastWarned.get();
        if (now - last >= WARN_EVERY_MILLIS && lastWarned.compareAndSet(last, now)) {
            LOG.warnf("request rates are not enforced while Redis cannot be reached (%s); requests go through",
                    unreachable.toString());
        }
    }

    private Optional<Rate> rateOf(String key) {
        return keys.limitsOf(key).flatMap(KeySettings::rate).or(() -> keys.defaults().rate());
    }
}
