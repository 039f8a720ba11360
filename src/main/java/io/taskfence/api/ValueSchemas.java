package io.taskfence.api;

import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.eclipse.microprofile.openapi.OASFilter;
import org.eclipse.microprofile.openapi.models.OpenAPI;
import org.eclipse.microprofile.openapi.models.media.Schema;
import org.eclipse.microprofile.openapi.models.media.Schema.SchemaType;

import io.quarkus.smallrye.openapi.OpenApiFilter;

/**
 * Writes the schema of a value (a date-time, an id, a JSON object of any members, any JSON value) where it is used,
 * instead of as a component named for the Java type that holds it: the scan names one for each of Instant, UUID and
 * the Jackson nodes (whose wire form application.properties gives), which generated clients then make classes of.
 * A component stays when it is a model (an object with properties) or an enum, and a reference to one has no type
 * beside it. A value that may be null, which the scan writes as {@code anyOf} the value and null, becomes the value's
 * schema with {@code null} among its types, as the scan writes a nullable string. Run when the document is built;
 * OpenApiDocumentTest checks that every reference left names a component.
 */
@OpenApiFilter(stages = OpenApiFilter.RunStage.BUILD)
public final class ValueSchemas implements OASFilter {

    private static final String COMPONENT = "#/components/schemas/";

    /** Every schema of the document naming a component, gathered as the filter walks it (filterOpenAPI comes last). */
    private final List<Schema> references = new ArrayList<>();
    /** Every schema of the document with alternatives ({@code anyOf}), gathered likewise. */
    private final List<Schema> alternatives = new ArrayList<>();

    @Override
    public Schema filterSchema(Schema schema) {
        if (schema.getRef() != null && schema.getRef().startsWith(COMPONENT)) {
            references.add(schema);
        }
        if (schema.getAnyOf() != null) {
            alternatives.add(schema);
        }
        return schema;
    }

    @Override
    public void filterOpenAPI(OpenAPI openAPI) {
        Map<String, Schema> values = new LinkedHashMap<>();
        openAPI.getComponents().getSchemas().forEach((name, schema) -> {
            if (schema.getEnumeration() == null && schema.getProperties() == null) {
                values.put(name, schema);
            }
        });
        Set<Schema> inlined = Collections.newSetFromMap(new IdentityHashMap<>());
        for (Schema reference : references) {
            Schema value = reference.getRef() == null ? null // met twice, inlined the first time
                    : value(values, reference.getRef());
            if (value != null) {
                inline(reference, value);
                inlined.add(reference);
            } else if (reference.getRef() != null) {
                // The scan writes the Java type's beside a reference it adds a description to: the component's own
                // says it, and generators warn of and clear a second one ("Type(s) cleared given $ref").
                reference.setType(null);
            }
        }
        for (Schema schema : alternatives) {
            List<Schema> anyOf = schema.getAnyOf();
            if (anyOf != null && anyOf.size() == 2 && inlined.contains(anyOf.get(0)) && anyOf.get(0).getType() != null
                    && List.of(SchemaType.NULL).equals(anyOf.get(1).getType())) {
                orNull(schema, anyOf.get(0));
            }
        }
        references.clear();
        alternatives.clear();
        values.keySet().forEach(openAPI.getComponents()::removeSchema);
    }

    /** The value a reference names, through values that only name another (an alias); null for a model or an enum. */
    private static Schema value(Map<String, Schema> values, String ref) {
        Schema value = values.get(ref.substring(COMPONENT.length()));
        for (int hops = 0; value != null && value.getRef() != null && hops < values.size(); hops++) {
            value = values.get(value.getRef().substring(COMPONENT.length()));
        }
        return value != null && value.getRef() == null ? value : null;
    }

    /**
     * The value's schema, with the place's own description and examples. The type the scan wrote beside the reference
     * goes: it is the Java type's ("object" for any JSON value, "array" for an ObjectNode, which is Iterable).
     */
    private static void inline(Schema place, Schema value) {
        becomeValue(place, value, "$ref", "type");
    }

    /** {@code place}, {@code anyOf} the value and null, as the value's schema with null among its types. */
    private static void orNull(Schema place, Schema value) {
        List<SchemaType> types = new ArrayList<>(value.getType());
        types.add(SchemaType.NULL);
        becomeValue(place, value, "anyOf", "type");
        place.setType(types);
    }

    /** {@code place} as the value's schema, keeping its own members but those {@code replaced}. */
    private static void becomeValue(Schema place, Schema value, String... replaced) {
        Map<String, Object> own = new LinkedHashMap<>(place.getAll());
        List.of(replaced).forEach(own::remove);
        Map<String, Object> merged = new LinkedHashMap<>(value.getAll());
        merged.putAll(own);
        place.setAll(merged);
    }
}
