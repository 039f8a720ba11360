package io.taskfence.api;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.eclipse.microprofile.openapi.OASFilter;
import org.eclipse.microprofile.openapi.models.OpenAPI;
import org.eclipse.microprofile.openapi.models.media.Schema;

import io.quarkus.smallrye.openapi.OpenApiFilter;

/**
 * Writes the schema of a value (a date-time, an id, a JSON object of any members, any JSON value) where it is used,
 * instead of as a component named for the Java type that holds it: the scan names one for each of Instant, UUID and
 * the Jackson nodes (whose wire form application.properties gives), which generated clients then make classes of.
 * A component stays when it is a model (an object with properties) or an enum, and a reference to one has no type
 * beside it. Run when the document is built.
 */
@OpenApiFilter(stages = OpenApiFilter.RunStage.BUILD)
public final class ValueSchemas implements OASFilter {

    private static final String COMPONENT = "#/components/schemas/";

    /** Every schema of the document naming a component, gathered as the filter walks it (filterOpenAPI comes last). */
    private final List<Schema> references = new ArrayList<>();

    @Override
    public Schema filterSchema(Schema schema) {
        if (schema.getRef() != null && schema.getRef().startsWith(COMPONENT)) {
            references.add(schema);
        }
        return schema;
    }

    @Override
    public void filterOpenAPI(OpenAPI openAPI) {
        Map<String, Schema> components = openAPI.getComponents().getSchemas();
        Map<String, Schema> values = new LinkedHashMap<>();
        components.forEach((name, schema) -> {
            if (schema.getEnumeration() == null && schema.getProperties() == null) {
                values.put(name, schema);
            }
        });
        for (Schema reference : references) {
            Schema value = reference.getRef() == null ? null // met twice, inlined the first time
                    : values.get(reference.getRef().substring(COMPONENT.length()));
            if (value != null) {
                inline(reference, value);
            } else if (reference.getRef() != null) {
                // The scan writes the Java type's beside a reference it adds a description to: the component's own
                // says it, and generators warn of and clear a second one ("Type(s) cleared given $ref").
                reference.setType(null);
            }
        }
        references.clear();
        values.keySet().forEach(openAPI.getComponents()::removeSchema);
    }

    /**
     * The value's schema, with the place's own description and examples. The type the scan wrote beside the reference
     * goes: it is the Java type's ("object" for any JSON value, "array" for an ObjectNode, which is Iterable).
     */
    private static void inline(Schema place, Schema value) {
        Map<String, Object> own = new LinkedHashMap<>(place.getAll());
        own.remove("$ref");
        own.remove("type");
        Map<String, Object> inlined = new LinkedHashMap<>(value.getAll());
        inlined.putAll(own);
        place.setAll(inlined);
    }
}
