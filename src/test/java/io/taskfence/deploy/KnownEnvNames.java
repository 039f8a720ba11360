package io.taskfence.deploy;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithName;
import io.smallrye.config.WithParentName;

/**
 * Environment variable names that something in the container reads. A name nobody reads is ignored
 * without a word (SmallRye Config cannot tell a misspelt variable from an unrelated one), so a typo in a
 * manifest silently leaves a setting at its default; this is what catches it.
 *
 * @param exact    names read as they are
 * @param prefixes beginnings of whole families of names (QUARKUS_LOG_..., a config map's keys)
 */
record KnownEnvNames(Set<String> exact, Set<String> prefixes) {

    /** The Quarkus keys this service relies on, as environment variables. */
    static final KnownEnvNames QUARKUS_KEYS_WE_USE = new KnownEnvNames(Set.of(
            "QUARKUS_HTTP_PORT",
            "QUARKUS_REDIS_HOSTS",
            "QUARKUS_REDIS_PASSWORD",
            "QUARKUS_DATASOURCE_JDBC_URL",
            "QUARKUS_DATASOURCE_USERNAME",
            "QUARKUS_DATASOURCE_PASSWORD"),
            Set.of("QUARKUS_LOG_"));

    /** What the JVM image's start script, run-java.sh, reads (src/main/docker/Dockerfile.jvm). */
    static final KnownEnvNames JVM_IMAGE = new KnownEnvNames(Set.of(
            "JAVA_OPTS",
            "JAVA_OPTS_APPEND",
            "JAVA_MAX_MEM_RATIO",
            "JAVA_INITIAL_MEM_RATIO",
            "JAVA_MAX_INITIAL_MEM",
            "JAVA_DIAGNOSTICS",
            "JAVA_DEBUG",
            "JAVA_DEBUG_PORT"),
            Set.of());

    KnownEnvNames {
        exact = Set.copyOf(exact);
        prefixes = Set.copyOf(prefixes);
    }

    /**
     * Every key of a {@code @ConfigMapping} interface as its environment variable: methods are keys in
     * kebab case, nested interfaces are dotted groups, all under the mapping's prefix.
     */
    static KnownEnvNames ofMapping(Class<?> mapping) {
        ConfigMapping annotation = mapping.getAnnotation(ConfigMapping.class);
        if (annotation == null) {
            throw new IllegalArgumentException(mapping + " is not a @ConfigMapping");
        }
        Set<String> exact = new HashSet<>();
        Set<String> prefixes = new HashSet<>();
        collect(mapping, annotation.prefix(), exact, prefixes);
        return new KnownEnvNames(exact, prefixes);
    }

    /** The environment variable SmallRye Config reads for a key: non-alphanumerics become _, upper case. */
    static String envName(String key) {
        return key.replaceAll("[^A-Za-z0-9_]", "_").toUpperCase(Locale.ROOT);
    }

    /** SmallRye Config's default naming of a mapping method: {@code drainTimeout} is {@code drain-timeout}. */
    static String kebab(String methodName) {
        return methodName.replaceAll("([a-z0-9])([A-Z])", "$1-$2").toLowerCase(Locale.ROOT);
    }

    KnownEnvNames and(KnownEnvNames other) {
        Set<String> allExact = new HashSet<>(exact);
        allExact.addAll(other.exact);
        Set<String> allPrefixes = new HashSet<>(prefixes);
        allPrefixes.addAll(other.prefixes);
        return new KnownEnvNames(allExact, allPrefixes);
    }

    boolean accepts(String name) {
        return exact.contains(name) || prefixes.stream().anyMatch(name::startsWith);
    }

    /** The names, in their order, that nothing reads. */
    List<String> unknownAmong(Collection<String> names) {
        return names.stream().filter(name -> !accepts(name)).toList();
    }

    private static void collect(Class<?> group, String prefix, Set<String> exact, Set<String> prefixes) {
        for (Method method : group.getMethods()) {
            if (Modifier.isStatic(method.getModifiers()) || method.isDefault() || method.getParameterCount() > 0) {
                continue;
            }
            String key = method.isAnnotationPresent(WithParentName.class)
                    ? prefix
                    : prefix + "." + Optional.ofNullable(method.getAnnotation(WithName.class)).map(WithName::value)
                            .orElseGet(() -> kebab(method.getName()));
            Class<?> type = method.getReturnType();
            Type generic = method.getGenericReturnType();
            if (type == Optional.class && generic instanceof ParameterizedType optional
                    && optional.getActualTypeArguments()[0] instanceof Class<?> wrapped && isGroup(wrapped)) {
                type = wrapped;
            }
            if (isGroup(type)) {
                collect(type, key, exact, prefixes);
            } else if (Map.class.isAssignableFrom(type)) {
                prefixes.add(envName(key) + "_");
            } else {
                exact.add(envName(key));
            }
        }
    }

    /** A nested settings interface, as opposed to a value (String, Duration, List, Optional, ...). */
    private static boolean isGroup(Class<?> type) {
        return type.isInterface() && !type.getName().startsWith("java.");
    }
}
