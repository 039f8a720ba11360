package io.taskfence.client;

/**
 * Runs one claimed task; what it returns (any value Jackson writes, or null) is the task's result. An exception
 * fails the attempt (retried after the service's backoff), a {@link PermanentFailure} ends the task DEAD. The
 * handler's thread is interrupted once the claim no longer holds its task ({@link Job#superseded()}).
 */
@FunctionalInterface
public interface TaskHandler {

    Object handle(Job job) throws Exception;
}
