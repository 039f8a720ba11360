package io.taskfence.api;

/** The two roles an API key can have (DESIGN section 7). */
final class Roles {

    /** May submit tasks and read them. */
    static final String SUBMIT = "submit";
    /** May also cancel, retry and read stats. */
    static final String ADMIN = "admin";

    private Roles() {
    }
}
