package io.taskfence.task;

/** The large fields a listing leaves out unless asked for ({@code ?fields=}); a single task read shows them all. */
public enum TaskField {
    PAYLOAD,
    RESULT
}
