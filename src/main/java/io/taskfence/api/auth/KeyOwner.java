package io.taskfence.api.auth;

import io.quarkus.security.identity.SecurityIdentity;
import io.taskfence.task.TaskScope;

/**
 * The API key behind a request, as the owner of tasks (DESIGN.md, "Configuration", "Tenants"): its name goes on the
 * tasks it submits, and a submit key sees and acts on those only. An admin key sees every task. Without
 * authentication there is no key: tasks get no owner and every caller sees all.
 *
 * @param name the key's name; null when authentication is off
 */
public record KeyOwner(String name, boolean admin) {

    /** The identity attribute {@link ApiKeys} puts the key's name in. */
    static final String KEY_NAME = "taskfence.key-name";

    public static KeyOwner of(SecurityIdentity identity) {
        return new KeyOwner(identity.getAttribute(KEY_NAME), identity.hasRole(Roles.ADMIN));
    }

    /**
     * Whether this caller may see how the cluster runs every tenant's work (which replica ran an attempt, the counts
     * of every tenant's tasks): an admin key, or anyone with authentication off; not a submit key.
     */
    public boolean seesTheCluster() {
        return admin || name == null;
    }

    /** The tasks this caller may see and act on. */
    public TaskScope scope() {
        return seesTheCluster() ? TaskScope.ALL : TaskScope.ownedBy(name);
    }
}
