package io.taskfence.clients;

import java.nio.file.Path;
import java.util.Map;

/**
 * What the packaged replicas of the client tests are configured with: two remote types and a worker key for them
 * (environment variables, as an operator sets them). The secret is long and random-looking: the packaged service
 * runs the prod profile.
 */
final class RemoteTypeSettings {

    static final String TYPE = "resize";
    static final String OTHER_TYPE = "thumbnail";
    static final String WORKER_KEY = "tf-remote-4c8e2a6f0b3d97e1a5c9f3b7d1e0a28c";
    static final Map<String, String> ENVIRONMENT = Map.of(
            "TASKFENCE_TYPES_RESIZE_REMOTE", "true",
            "TASKFENCE_TYPES_THUMBNAIL_REMOTE", "true",
            "TASKFENCE_AUTH_KEYS_REMOTEWORKER_SECRET", WORKER_KEY,
            "TASKFENCE_AUTH_KEYS_REMOTEWORKER_ROLE", "worker",
            "TASKFENCE_AUTH_KEYS_REMOTEWORKER_TYPES", TYPE + "," + OTHER_TYPE);
    /** Debian's own interpreter: the Python client must run on it with the standard library alone. */
    static final String PYTHON = "/usr/bin/python3";
    static final Path PYTHON_CLIENT = Path.of("clients", "python");

    private RemoteTypeSettings() {
    }
}
