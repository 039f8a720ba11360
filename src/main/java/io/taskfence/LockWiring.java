package io.taskfence;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.UUID;

import jakarta.inject.Singleton;
import jakarta.enterprise.inject.Produces;

import io.taskfence.lock.LockSettings;

/** Hands the lock package its settings, so that the package itself does not read configuration. */
final class LockWiring {

    @Produces
    @Singleton
    LockSettings lockSettings(TaskfenceConfig config) {
        return new LockSettings(config.keyPrefix(), config.replicaId().orElseGet(LockWiring::hostName),
                config.lock().lease());
    }

    /** Kubernetes sets HOSTNAME to the pod name; elsewhere ask the resolver, then make one up. */
    private static String hostName() {
        String fromEnvironment = System.getenv("HOSTNAME");
        if (fromEnvironment != null && !fromEnvironment.isBlank()) {
            return fromEnvironment;
        }
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            return "replica-" + UUID.randomUUID().toString().substring(0, 8);
        }
    }
}
