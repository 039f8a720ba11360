package io.taskfence.types;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Function;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import org.jboss.logging.Logger;

import com.fasterxml.jackson.databind.node.ObjectNode;

import io.quarkus.runtime.Startup;
import io.taskfence.TaskfenceConfig;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;
import io.vertx.json.schema.Draft;
import io.vertx.json.schema.JsonSchema;
import io.vertx.json.schema.JsonSchemaOptions;
import io.vertx.json.schema.OutputFormat;
import io.vertx.json.schema.OutputUnit;
import io.vertx.json.schema.Validator;

/**
 * The JSON Schemas a type's payloads must meet at submission ({@code taskfence.types.<type>.schema}, inline, or
 * {@code .schema-file}; draft 2020-12), read and compiled at start-up: a schema that is not JSON, or that the
 * validator cannot use, stops the start naming the key. A remote type's workers are outside the service, so this is
 * how its payloads are checked before a task is stored (422 naming where and why); any type may have one. A remote
 * type declared through the API carries its own ({@link RemoteTypes#declare}).
 */
@ApplicationScoped
@Startup
public class PayloadSchemas {

    private static final Logger LOG = Logger.getLogger(PayloadSchemas.class);
    /** Where the validator's own identifiers start; no schema is ever fetched from it. */
    private static final String BASE_URI = "urn:taskfence:types:";

    private final Map<String, Validator> byType;
    /** The schema a remote type was declared with through the API, if any. */
    private final Function<String, Optional<Validator>> declared;

    @Inject
    PayloadSchemas(TaskfenceConfig config, RemoteTypes remote) {
        this(read(config.types()), remote::declaredSchema);
    }

    PayloadSchemas(Map<String, Validator> byType, Function<String, Optional<Validator>> declared) {
        this.byType = byType;
        this.declared = declared;
    }

    static Map<String, Validator> read(Map<String, TaskfenceConfig.Type> settings) {
        Map<String, Validator> byType = new TreeMap<>();
        settings.forEach((type, setting) -> schemaText(type, setting).ifPresent(text -> {
            String key = "taskfence.types." + type + (setting.schema().isPresent() ? ".schema" : ".schema-file");
            try {
                byType.put(type, compile(type, text, key));
            } catch (IllegalArgumentException e) {
                throw new IllegalStateException(e.getMessage(), e);
            }
        }));
        return Collections.unmodifiableMap(byType);
    }

    /**
     * {@code text} as the validator of {@code type}'s payloads.
     *
     * @throws IllegalArgumentException saying why, naming {@code where} it came from, if it is not a JSON object or
     *         cannot be used as a JSON Schema
     */
    static Validator compile(String type, String text, String where) {
        JsonObject schema;
        try {
            schema = new JsonObject(text);
        } catch (DecodeException | ClassCastException e) {
            throw new IllegalArgumentException(where + " is not a JSON object: " + e.getMessage(), e);
        }
        Validator validator = Validator.create(JsonSchema.of(schema), new JsonSchemaOptions()
                .setDraft(Draft.DRAFT202012).setBaseUri(BASE_URI + type).setOutputFormat(OutputFormat.Basic));
        try {
            validator.validate(new JsonObject()); // compiles it: a schema it cannot use fails here, not at a submit
        } catch (RuntimeException e) {
            throw new IllegalArgumentException(where + " cannot be used as a JSON Schema: " + e.getMessage(), e);
        }
        return validator;
    }

    private static Optional<String> schemaText(String type, TaskfenceConfig.Type setting) {
        if (setting.schema().isPresent() && setting.schemaFile().isPresent()) {
            throw new IllegalStateException("taskfence.types." + type + ": name its schema once, as schema or as "
                    + "schema-file, not both");
        }
        if (setting.schemaFile().isEmpty()) {
            return setting.schema();
        }
        try {
            return Optional.of(Files.readString(Path.of(setting.schemaFile().get())));
        } catch (IOException e) {
            throw new IllegalStateException("taskfence.types." + type + ".schema-file cannot be read: " + e, e);
        }
    }

    /**
     * What is wrong with {@code payload} for its type's schema (the configuration's, or the one a remote type was
     * declared with), one line each naming where; empty if nothing.
     */
    public List<String> problems(String type, ObjectNode payload) {
        Validator validator = byType.containsKey(type) ? byType.get(type) : declared.apply(type).orElse(null);
        if (validator == null) {
            return List.of();
        }
        OutputUnit result;
        try {
            result = validator.validate(new JsonObject(payload.toString()));
        } catch (RuntimeException unusable) {
            // A part of the schema the start-up check did not reach (a $ref under a property) fails here.
            LOG.warnf("taskfence.types.%s's schema cannot be applied: %s", type, unusable.getMessage());
            return List.of("payload: the type's schema cannot be applied (" + unusable.getMessage() + "); tell the "
                    + "operators");
        }
        if (Boolean.TRUE.equals(result.getValid())) {
            return List.of();
        }
        List<OutputUnit> errors = result.getErrors() == null || result.getErrors().isEmpty() ? List.of(result)
                : result.getErrors();
        // The validator reports a property that fails its subschema twice: that it fails, and why. Only the why.
        List<OutputUnit> why = errors.stream().filter(error -> error.getError() == null
                || !error.getError().endsWith("does not match schema")).toList();
        List<String> problems = new ArrayList<>();
        for (OutputUnit error : why.isEmpty() ? errors : why) {
            String at = error.getInstanceLocation() == null ? "" : error.getInstanceLocation().replaceFirst("^#", "");
            problems.add("payload" + at + ": " + error.getError());
        }
        return problems;
    }
}
