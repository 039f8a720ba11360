package io.taskfence.lock;

/**
 * Redis names for one lock. The hash tag ({@code {name}}) puts the lock and its counter in one
 * Redis Cluster slot, which a script that touches both requires. The release channel is shared by
 * all locks of a deployment: its messages carry the lock's name.
 */
record LockKeys(String name, String lock, String fence, String releaseChannel) {

    static LockKeys of(String prefix, String name) {
        String tag = "{" + name + "}";
        return new LockKeys(name, prefix + ":lock:" + tag, prefix + ":fence:" + tag, releaseChannel(prefix));
    }

    static String releaseChannel(String prefix) {
        return prefix + ":lock-released";
    }
}
