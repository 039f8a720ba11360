package io.taskfence.lock;

import java.time.Duration;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicReference;

import jakarta.annotation.Priority;
import jakarta.interceptor.AroundInvoke;
import jakarta.interceptor.Interceptor;
import jakarta.interceptor.InvocationContext;

import io.quarkus.runtime.configuration.DurationConverter;

/**
 * Holds the lock of {@link Fenced} around the method. It runs before (outside) transactional
 * interceptors, so that a transaction opened by the method commits while the lock is still held.
 */
@Fenced("")
@Interceptor
@Priority(Interceptor.Priority.PLATFORM_BEFORE + 100)
class FencedInterceptor {

    private final FencedLocks locks;
    private final CurrentLease current;
    private final LockSettings settings;

    FencedInterceptor(FencedLocks locks, CurrentLease current, LockSettings settings) {
        this.locks = locks;
        this.current = current;
        this.settings = settings;
    }

    @AroundInvoke
    Object runFenced(InvocationContext context) throws Exception {
        Class<?> returns = context.getMethod().getReturnType();
        if (CompletionStage.class.isAssignableFrom(returns) || returns.getName().startsWith("io.smallrye.mutiny.")) {
            // The lock would be released when the method returns, long before the work it started ends.
            throw new IllegalStateException("@Fenced supports methods that do their work before returning; "
                    + context.getMethod() + " returns " + returns.getSimpleName());
        }
        Fenced fenced = context.getInterceptorBinding(Fenced.class);
        Duration lease = fenced.lease().isBlank() ? settings.defaultLease()
                : DurationConverter.parseDuration(fenced.lease());
        AtomicReference<Object> result = new AtomicReference<>();
        locks.runExclusively(fenced.value(), lease, held -> result.set(current.runWith(held, context::proceed)));
        return result.get();
    }
}
