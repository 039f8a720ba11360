package io.taskfence.task;

/**
 * The large fields a listing leaves out unless asked for ({@code ?fields=}: a payload or result up to 64 KiB each, a
 * progress report up to 4 KiB); a single task read shows them all.
 */
public enum TaskField {
    PAYLOAD,
    RESULT,
    PROGRESS
}
