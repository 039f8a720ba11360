package io.taskfence.deploy;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;

/**
 * Fields the Kubernetes model does not know, wherever they are in an object. fabric8 keeps them aside
 * (its {@code additionalProperties}) instead of failing, but the API server refuses them (kubectl
 * validates strictly), and a misspelt {@code readinesProbe} would otherwise just be missing.
 */
final class UnknownFields {

    private UnknownFields() {
    }

    /** Paths such as {@code spec.template.spec.containers[0].readinesProbe}, empty when every field is known. */
    static List<String> in(Object object) {
        List<String> found = new ArrayList<>();
        walk(object, "", found);
        return found;
    }

    private static void walk(Object value, String path, List<String> found) {
        if (value instanceof Collection<?> items) {
            int i = 0;
            for (Object item : items) {
                walk(item, path + "[" + i++ + "]", found);
            }
        } else if (value instanceof Map<?, ?> entries) {
            entries.forEach((key, item) -> walk(item, path + "[" + key + "]", found));
        } else if (value != null && value.getClass().getName().startsWith("io.fabric8.")) {
            for (Method getter : value.getClass().getMethods()) {
                if (isGetter(getter)) {
                    Object field = read(getter, value);
                    if (getter.getName().equals("getAdditionalProperties")) {
                        ((Map<?, ?>) field).keySet().forEach(key -> found.add(join(path, String.valueOf(key))));
                    } else {
                        walk(field, join(path, propertyName(getter)), found);
                    }
                }
            }
        }
    }

    private static boolean isGetter(Method method) {
        return method.getParameterCount() == 0
                && !Modifier.isStatic(method.getModifiers())
                && method.getName().startsWith("get")
                && !method.getName().equals("getClass")
                && method.getDeclaringClass().getName().startsWith("io.fabric8.");
    }

    private static Object read(Method getter, Object owner) {
        try {
            return getter.invoke(owner);
        } catch (IllegalAccessException | InvocationTargetException e) {
            throw new IllegalStateException("cannot read " + getter, e);
        }
    }

    private static String propertyName(Method getter) {
        String name = getter.getName().substring(3);
        return Character.toLowerCase(name.charAt(0)) + name.substring(1);
    }

    private static String join(String path, String field) {
        return path.isEmpty() ? field : path + "." + field;
    }
}
