package io.taskfence.deploy;

import static io.smallrye.config.common.utils.StringUtil.replaceNonAlphanumericByUnderscores;

import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import io.smallrye.config.ConfigMappings.ConfigClass;
import io.taskfence.TaskfenceConfig;

/**
 * The environment variables something in the application's container reads. SmallRye Config ignores a
 * variable nobody reads without a word (it cannot tell a misspelt name from an unrelated one), so a typo
 * in a manifest silently leaves a setting at its default; this is what catches it.
 */
final class KnownEnvNames {

    /** The Quarkus keys this service relies on; quarkus.log.* is a whole family. */
    private static final List<String> QUARKUS_KEYS_WE_USE = List.of("quarkus.http.port", "quarkus.redis.hosts",
            "quarkus.redis.password", "quarkus.redis.client-type", "quarkus.redis.master-name", "quarkus.redis.role",
            "quarkus.redis.auto-failover", "quarkus.datasource.jdbc.url", "quarkus.datasource.username",
            "quarkus.datasource.password", "quarkus.log.*");

    /** What the JVM image's start script, run-java.sh, reads (src/main/docker/Dockerfile.jvm). */
    private static final List<String> JVM_IMAGE = List.of("JAVA_OPTS", "JAVA_OPTS_APPEND", "JAVA_MAX_MEM_RATIO",
            "JAVA_INITIAL_MEM_RATIO", "JAVA_MAX_INITIAL_MEM", "JAVA_DIAGNOSTICS", "JAVA_DEBUG", "JAVA_DEBUG_PORT");

    /** Every key of TaskfenceConfig as SmallRye lists it (nested groups, @WithName and all), and the above. */
    private static final List<Pattern> KNOWN = Stream.of(
            ConfigClass.configClass(TaskfenceConfig.class).getProperties().keySet(), QUARKUS_KEYS_WE_USE, JVM_IMAGE)
            .flatMap(Collection::stream)
            .map(KnownEnvNames::envPattern)
            .toList();

    private KnownEnvNames() {
    }

    static boolean accepts(String name) {
        return KNOWN.stream().anyMatch(known -> known.matcher(name).matches());
    }

    /** The names, in their order, that nothing reads. */
    static List<String> unknownAmong(Collection<String> names) {
        return names.stream().filter(name -> !accepts(name)).toList();
    }

    /**
     * A key's environment variable, named the way SmallRye Config names it. A key's wildcard stands for
     * a list index ({@code keys[*]} is {@code KEYS_0_}) or, alone, for a map's key ({@code log.*}).
     */
    private static Pattern envPattern(String key) {
        String[] parts = key.split("\\*", -1);
        StringBuilder regex = new StringBuilder(Pattern.quote(envName(parts[0])));
        for (int i = 1; i < parts.length; i++) {
            regex.append(parts[i - 1].endsWith("[") ? "[0-9]+" : ".+").append(Pattern.quote(envName(parts[i])));
        }
        return Pattern.compile(regex.toString());
    }

    private static String envName(String key) {
        return replaceNonAlphanumericByUnderscores(key).toUpperCase(Locale.ROOT);
    }
}
