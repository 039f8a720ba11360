package io.taskfence.task.submit.outcome;

/** A single submission's {@link TypeTakenBack}: nothing was stored. */
public final class TypeTakenBackException extends RuntimeException {

    public TypeTakenBackException(TypeTakenBack gone) {
        super(gone.detail());
    }
}
