package io.taskfence.lock;

import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import jakarta.enterprise.util.Nonbinding;
import jakarta.interceptor.InterceptorBinding;

/**
 * Runs the annotated method on one replica at a time, holding the fenced lock {@link #value()}; a
 * call that finds the lock taken is skipped (the method does not run and returns {@code null}), not
 * queued. Meant for {@code @Scheduled} methods, which then read their token from {@link CurrentLease}:
 *
 * <pre>{@code
 * @Fenced("dispatch")
 * @Scheduled(every = "1s", concurrentExecution = SKIP)
 * void dispatch() { long token = currentLease.get().token(); ... }
 * }</pre>
 *
 * If the lock is lost while the method runs, the method's thread is interrupted.
 */
@InterceptorBinding
@Inherited
@Retention(RetentionPolicy.RUNTIME)
@Target({ ElementType.METHOD, ElementType.TYPE })
public @interface Fenced {

    /** The lock's name, shared by every replica that runs this job. */
    @Nonbinding
    String value();

    /** The lock's lease, e.g. {@code 30s} or {@code PT30S}; empty means {@code taskfence.lock.lease}. */
    @Nonbinding
    String lease() default "";
}
