package io.taskfence.lock;

/**
 * Redis names for one lock. The hash tag ({@code {name}}) puts the lock and its counter in one
 * Redis Cluster slot, which a script that touches both requires.
 */
record LockKeys(String lock, String fence) {

    static LockKeys of(String prefix, String name) {
        String tag = "{" + name + "}";
        return new LockKeys(prefix + ":lock:" + tag, prefix + ":fence:" + tag);
    }

    static String releaseChannel(String prefix) {
        return prefix + ":lock-released";
    }
}
