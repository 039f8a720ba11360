package io.taskfence.api.auth;

/** The roles an API key can have (DESIGN.md, "Configuration"). */
public final class Roles {

    /** May submit tasks and read them. */
    public static final String SUBMIT = "submit";
    /** May also cancel, retry and read stats. */
    public static final String ADMIN = "admin";
    /** May claim and run tasks of the remote types its key names, and nothing else (DESIGN.md, "Remote workers"). */
    public static final String WORKER = "worker";

    private Roles() {
    }
}
