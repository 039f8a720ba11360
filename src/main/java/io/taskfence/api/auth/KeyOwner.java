package io.taskfence.api.auth;

import java.util.Set;

import io.quarkus.security.identity.SecurityIdentity;
import io.taskfence.task.TaskScope;

/**
 * The API key behind a request, as the owner of tasks (DESIGN.md, "Configuration", "Tenants"): its name goes on the
 * tasks it submits, and a submit key sees and acts on those only. An admin key sees every task. Without
 * authentication there is no key: tasks get no owner and every caller sees all.
 *
 * @param name the key's name; null when authentication is off
 * @param workerTypes the remote types a worker key may claim; empty for other keys, null when authentication is off
 *        (every remote type)
 */
public record KeyOwner(String name, boolean admin, Set<String> workerTypes) {

    /** The identity attribute {@link ApiKeys} puts the key's name in. */
    static final String KEY_NAME = "taskfence.key-name";
    /** A worker key's types naming this alone may claim every remote type, also one declared through the API. */
    public static final String EVERY_REMOTE_TYPE = "*";
    /** The identity attribute {@link ApiKeys} puts a worker key's types in. */
    static final String WORKER_TYPES = "taskfence.worker-types";

    public static KeyOwner of(SecurityIdentity identity) {
        String name = identity.getAttribute(KEY_NAME);
        Set<String> types = identity.getAttribute(WORKER_TYPES);
        return new KeyOwner(name, identity.hasRole(Roles.ADMIN), name == null ? null : types == null ? Set.of() : types);
    }

    /** Whether this caller may claim tasks of the remote type {@code type}. */
    public boolean mayClaim(String type) {
        return workerTypes == null || workerTypes.contains(EVERY_REMOTE_TYPE) || workerTypes.contains(type);
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
