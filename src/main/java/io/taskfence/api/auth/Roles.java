package io.taskfence.api.auth;

/** The two roles an API key can have (DESIGN.md, "Configuration"). */
public final class Roles {

    /** May submit tasks and read them. */
    public static final String SUBMIT = "submit";
    /** May also cancel, retry and read stats. */
    public static final String ADMIN = "admin";

    private Roles() {
    }
}
