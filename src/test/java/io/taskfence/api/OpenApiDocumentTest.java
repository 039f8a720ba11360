package io.taskfence.api;

import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.Locale;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BiConsumer;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.path.json.JsonPath;
import io.restassured.response.Response;
import io.restassured.specification.RequestSpecification;
import io.taskfence.testing.ApiKeysForTests;
import io.taskfence.testing.TestServers;
import io.taskfence.testing.WorkerApiCalls;
import io.taskfence.worker.RunningTasksProfile;
import io.vertx.core.json.Json;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.json.schema.Draft;
import io.vertx.json.schema.JsonSchema;
import io.vertx.json.schema.JsonSchemaOptions;
import io.vertx.json.schema.OutputFormat;
import io.vertx.json.schema.OutputUnit;
import io.vertx.json.schema.Validator;

/**
 * The OpenAPI document served at {@code /q/openapi} is one clients can be generated from (issue 28, item 6): every
 * operation has a unique {@code operationId}, and its error answers, any call's and its own, are described as
 * problems; it names a server and a licence; each answer of the service is what its schema says (issue 42). CI also
 * lints the document the build writes with Redocly's rules.
 */
@QuarkusTest
@TestServers
@TestProfile(RunningTasksProfile.class) // a remote worker's claims need dispatch
class OpenApiDocumentTest {

    private static final Set<String> ANY_CALL = Set.of("401", "403", "429", "503");

    @TestHTTPResource(value = "/", management = true)
    URI management;

    @Test
    void everyOperationHasAnIdAndItsErrorAnswersAsProblems() {
        JsonPath document = given().queryParam("format", "json").get(management.resolve("/q/openapi")).then()
                .statusCode(200).extract().jsonPath();
        Map<String, Map<String, Map<String, Object>>> paths = document.getMap("paths");
        Set<String> ids = new HashSet<>();
        int operations = 0;
        for (var path : paths.entrySet()) {
            if (path.getKey().startsWith("/test-only/")) {
                continue; // the tests' own resources (FailingResource, ...), not the API's
            }
            for (var method : path.getValue().entrySet()) {
                String at = method.getKey() + " " + path.getKey();
                @SuppressWarnings("unchecked")
                Map<String, Map<String, Object>> responses = (Map<String, Map<String, Object>>) (Map<?, ?>) method
                        .getValue().get("responses");
                String id = (String) method.getValue().get("operationId");
                assertTrue(id != null && ids.add(id), at + ": operationId " + id + " missing or not unique");
                assertTrue(responses.keySet().containsAll(ANY_CALL), at + " answers " + responses.keySet());
                for (var answer : responses.entrySet()) {
                    if (answer.getKey().startsWith("4") || answer.getKey().startsWith("5")) {
                        assertEquals("#/components/schemas/Problem", document.getString("paths.'" + path.getKey()
                                + "'." + method.getKey() + ".responses.'" + answer.getKey()
                                + "'.content.'application/problem+json'.schema.$ref"), at + " " + answer.getKey());
                    }
                }
                operations++;
            }
        }
        assertEquals(40, operations, "the API's operations: " + ids);
        // An operation's own answers, as the REST API's table lists them.
        String retry = "paths.'/api/v1/tasks/{id}/retry'.post.responses.";
        assertEquals("the task is not DEAD or CANCELLED", document.getString(retry + "'409'.description"));
        assertTrue(document.getString(retry + "'429'.description").contains("quota"), "retry's 429 names the quota");
        assertTrue(document.getMap("paths.'/api/v1/tasks'.post.responses").keySet().containsAll(
                Set.of("400", "413", "415", "422")), "a submission's answers to its body");
        assertFalse(document.getList("servers").isEmpty(), "no server");
        assertEquals("Apache-2.0", document.getString("info.license.name"));
    }

    /**
     * Generated clients work (issue 42): the document describes the wire, not the Java classes behind it. No component
     * schema is named for a JDK or Jackson type (JsonNode, ObjectNode, Instant, UUID, Duration, ...) or describes a
     * bean's getters ({@code empty}, {@code valueNode}, {@code nodeType}, ...); a component is a model (an object with
     * properties) or an enum, since a bare string, array or any-value component stands for a Java type a generator
     * would make a class of. A date-time or an id is a {@code string} with its {@code format}, inline. Nor is an
     * operation tagged with its resource class's name, which names a generated client's classes.
     */
    @Test
    void noSchemaIsAJavaType() throws Exception {
        JsonNode document = document();
        List<String> leaks = new ArrayList<>();
        document.path("components").path("schemas").properties().forEach(component -> {
            String name = component.getKey();
            JsonNode schema = component.getValue();
            javaType(name).ifPresent(type -> leaks.add("component " + name + " is named for " + type));
            if (!schema.has("enum") && !(isType(schema, "object") && schema.has("properties"))) {
                leaks.add("component " + name + " is neither a model nor an enum: " + schema);
            }
        });
        walk(document, "", (at, node) -> {
            if (node.has("properties")) {
                node.path("properties").fieldNames().forEachRemaining(property -> {
                    if (BEAN_PROPERTIES.contains(property)) {
                        leaks.add(at + " has the Java bean property " + property);
                    }
                });
            }
            // ValueSchemas removes the value components it wrote in place: a reference it missed would dangle.
            String ref = node.path("$ref").asText("");
            if (ref.startsWith("#/components/schemas/")
                    && !document.path("components").path("schemas").has(ref.substring("#/components/schemas/".length()))) {
                leaks.add(at + " names the component " + ref + ", which the document does not have");
            }
        });
        operations(document, (at, operation) -> {
            JsonNode tags = operation.path("tags");
            if (tags.size() != 1 || tags.get(0).asText().endsWith("Resource")) {
                leaks.add(at + " is tagged " + tags + ", not with one name of the API's (a client's class is named by it)");
            }
        });
        assertEquals(List.of(), leaks, leaks.size() + " leaks of Java types into the OpenAPI document");
    }

    /** The key is sent as a bearer token and is an opaque string: a client told it is a JWT would try to read it. */
    @Test
    void theKeyIsAnOpaqueBearerToken() throws Exception {
        JsonNode scheme = document().path("components").path("securitySchemes").path("apiKey");
        assertEquals("http bearer Opaque", scheme.path("type").asText() + " " + scheme.path("scheme").asText() + " "
                + scheme.path("bearerFormat").asText(), scheme::toString);
    }

    /**
     * Every operation lists each success answer it gives, as the REST API's table in DESIGN.md does, each with its
     * schema: a client generated from the document reads what the service sends. 204 alone has no body. (No answer of
     * the document is other than JSON: the dashboard's pages are static files, which the document does not list.)
     */
    @Test
    void everyOperationListsItsSuccessAnswersWithTheirSchemas() throws Exception {
        JsonNode document = document();
        List<String> untyped = new ArrayList<>();
        operations(document, (at, operation) -> {
            String id = operation.path("operationId").asText();
            Map<String, String> expected = SUCCESS.getOrDefault(id, Map.of("200", ""));
            Map<String, String> answers = new TreeMap<>();
            operation.path("responses").properties().forEach(answer -> {
                if (!answer.getKey().startsWith("2")) {
                    return;
                }
                JsonNode content = answer.getValue().path("content");
                if (answer.getKey().equals("204")) {
                    answers.put("204", content.isEmpty() ? "" : "a body: " + content);
                    return;
                }
                JsonNode schema = content.path("application/json").path("schema");
                if (content.size() != 1 || schema.isEmpty()) {
                    untyped.add(id + " (" + at + ") answers " + answer.getKey() + " without a JSON schema: " + content);
                }
                String ref = schema.path("$ref").asText();
                answers.put(answer.getKey(), expected.getOrDefault(answer.getKey(), "").isEmpty() ? ""
                        : ref.substring(ref.lastIndexOf('/') + 1));
            });
            if (!answers.equals(new TreeMap<>(expected))) {
                untyped.add(id + " (" + at + ") lists the success answers " + answers + ", not " + new TreeMap<>(expected));
            }
        });
        assertEquals(List.of(), untyped, untyped.size() + " operations do not list their success answers");
    }

    /**
     * A payload, a bulk action's filter, a task's callback and a type's JSON Schema are JSON objects, any members (the
     * service refuses anything else: SubmissionChecks, StrictJson); a result is any JSON value (a worker may send
     * any, or none). Each where the document shows it, in a request or an answer.
     */
    @Test
    void payloadsAreJsonObjectsAndResultsAnyJson() throws Exception {
        JsonNode document = document();
        JsonNode components = document.path("components").path("schemas");
        List<String> wrong = new ArrayList<>();
        int seen = 0;
        for (var component : components.properties()) {
            for (var property : component.getValue().path("properties").properties()) {
                String at = component.getKey() + "." + property.getKey();
                JsonNode schema = property.getValue();
                if (JSON_OBJECTS.contains(property.getKey())) {
                    seen++;
                    JsonNode more = schema.path("additionalProperties");
                    boolean anyMembers = !schema.has("properties") && !schema.has("$ref")
                            && (more.isMissingNode() || more.asBoolean() || more.isObject() && more.isEmpty());
                    JsonNode resolved = schema.has("$ref") ? components.path(refName(schema)) : schema;
                    if (!isType(resolved, "object") || resolved.has("items")
                            || !anyMembers && !property.getKey().equals("callback")) {
                        wrong.add(at + " is not a JSON object of any members: " + schema);
                    }
                } else if (property.getKey().equals("result")) {
                    seen++;
                    if (schema.has("type") || schema.has("$ref") || schema.has("properties")) {
                        wrong.add(at + " is not any JSON value: " + schema);
                    }
                }
            }
        }
        assertEquals(List.of(), wrong, wrong.size() + " of " + seen + " payloads, filters or results mistyped");
        assertTrue(seen >= 12, "payloads, filters, callbacks, schemas and results found: " + seen);
    }

    /**
     * Generated clients work (issue 42): every parameter says what it is (a description) and what it takes (its schema
     * as the service checks it: an id a uuid, a time a date-time, a limit an integer in its range, a status one of the
     * task statuses), so a generated method takes typed arguments, not only strings. A parameter not in {@link
     * #PARAMETERS} fails, so a new one is described too. An array parameter is comma-separated (form, not exploded),
     * as the service reads it. And no schema has a {@code type} beside its {@code $ref}, which generators warn about
     * and clear.
     */
    @Test
    void everyParameterIsDescribedAndTyped() throws Exception {
        JsonNode document = document();
        ObjectMapper json = new ObjectMapper();
        List<String> wrong = new ArrayList<>();
        operations(document, (at, operation) -> operation.path("parameters").forEach(parameter -> {
            String name = parameter.path("name").asText();
            String where = operation.path("operationId").asText() + " (" + at + ") " + parameter.path("in").asText()
                    + " parameter " + name;
            if (parameter.path("description").asText().isBlank()) {
                wrong.add(where + " has no description");
            }
            String expected = PARAMETERS.getOrDefault(operation.path("operationId").asText() + " " + name,
                    PARAMETERS.get(name));
            try {
                if (expected == null) {
                    wrong.add(where + " is not in the test's table of parameters: " + parameter.path("schema"));
                } else if (!json.readTree(expected).equals(parameter.path("schema"))) {
                    wrong.add(where + " has the schema " + parameter.path("schema") + ", not " + expected);
                }
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
            if (isType(parameter.path("schema"), "array") && !("form".equals(parameter.path("style").asText())
                    && parameter.path("explode").isBoolean() && !parameter.path("explode").asBoolean())) {
                wrong.add(where + " is an array but not comma-separated (style form, explode false): " + parameter);
            }
        }));
        walk(document, "", (at, node) -> {
            if (node.has("$ref") && node.has("type")) {
                wrong.add(at + " has a type beside its $ref: " + node);
            }
        });
        assertEquals(List.of(), wrong, wrong.size() + " parameters or schemas wrong");
    }

    private static final String UUID_SCHEMA = "{\"type\": \"string\", \"format\": \"uuid\"}";
    private static final String TIME = "{\"type\": \"string\", \"format\": \"date-time\"}";
    private static final String SEARCH = "{\"type\": \"string\", \"minLength\": 1, \"maxLength\": 200}";
    private static final String NAME = "{\"type\": \"string\", \"pattern\": \"[a-z0-9][a-z0-9._-]{0,63}\"}";

    /**
     * Each parameter's schema as the service checks it (DESIGN.md, "REST API"), by name, or by "operationId name"
     * where one name takes different values.
     */
    private static final Map<String, String> PARAMETERS = Map.ofEntries(
            Map.entry("id", UUID_SCHEMA),
            Map.entry("batch", UUID_SCHEMA),
            Map.entry("createdAfter", TIME),
            Map.entry("progressAfter", TIME),
            Map.entry("createdBefore", TIME),
            Map.entry("error", SEARCH),
            Map.entry("text", SEARCH),
            Map.entry("type", NAME),
            Map.entry("name", NAME),
            Map.entry("owner", "{\"type\": \"string\", \"pattern\": \"[a-z0-9]{1,32}\"}"),
            Map.entry("status", "{\"$ref\": \"#/components/schemas/TaskStatus\"}"),
            Map.entry("listTasks limit", "{\"type\": \"integer\", \"minimum\": 1, \"maximum\": 100, \"default\": 50}"),
            Map.entry("listBatches limit", "{\"type\": \"integer\", \"minimum\": 1, \"maximum\": 100, \"default\": 20}"),
            Map.entry("after", "{\"type\": \"string\", \"pattern\": \"[A-Za-z0-9_-]+\"}"),
            Map.entry("listAudit after", "{\"type\": \"string\", \"pattern\": \"[0-9]{1,18}\"}"),
            Map.entry("getHistory step", "{\"type\": \"string\", \"pattern\": \"[0-9]{1,4}(m|h)\"}"),
            Map.entry("listAudit limit", "{\"type\": \"integer\", \"minimum\": 1, \"maximum\": 100, \"default\": 50}"),
            Map.entry("from", TIME),
            Map.entry("to", TIME),
            Map.entry("key", "{\"type\": \"string\", \"pattern\": \"[a-z0-9]{1,32}\"}"),
            Map.entry("getKey name", "{\"type\": \"string\", \"pattern\": \"[a-z0-9]{1,32}\"}"),
            Map.entry("changeKey name", "{\"type\": \"string\", \"pattern\": \"[a-z0-9]{1,32}\"}"),
            Map.entry("rotateKey name", "{\"type\": \"string\", \"pattern\": \"[a-z0-9]{1,32}\"}"),
            Map.entry("revokeKey name", "{\"type\": \"string\", \"pattern\": \"[a-z0-9]{1,32}\"}"),
            Map.entry("operation", "{\"type\": \"string\", \"pattern\": \"[A-Za-z]{1,64}\"}"),
            Map.entry("fields", "{\"type\": \"array\", \"items\": {\"$ref\": \"#/components/schemas/TaskField\"}, "
                    + "\"uniqueItems\": true, \"maxItems\": 3}"),
            Map.entry("wait", "{\"type\": \"string\", \"pattern\": \"([0-9]{1,5})(ms|s)\"}"),
            Map.entry("action", "{\"type\": \"string\", \"enum\": [\"cancel\", \"retry\"]}"),
            Map.entry("claimId", "{\"type\": \"string\", \"pattern\": \"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-"
                    + "[0-9a-f]{12}\\\\.[0-9]{1,9}\\\\.[A-Za-z0-9_-]+\"}"),
            Map.entry("Idempotency-Key", "{\"type\": \"string\", \"pattern\": \"[\\\\x21-\\\\x7e]{1,200}\"}"));

    /**
     * What the service sends is what the document says it sends (issue 42): a client generated from it, strictly
     * typed, reads every answer. Each answer below, one or more of every operation answering JSON and a problem, is
     * validated (JSON Schema 2020-12, the dialect of OpenAPI 3.1) against the schema its operation lists for its
     * status, with every model closed to members it does not declare: each member sent is declared, each required
     * member is sent, and a null is sent only where the schema allows null.
     */
    @Test
    void everyAnswerIsWhatItsSchemaSays() throws Exception {
        WireCheck wire = new WireCheck(document());
        String type = "wire.check";
        String far = "\"runAt\":\"2099-01-01T00:00:00Z\"";
        wire.send(ApiKeysForTests.ADMIN_KEY, "PUT", "/api/v1/types/{type}", type, "{\"remote\":true}");
        wire.send(ApiKeysForTests.ADMIN_KEY, "POST", "/api/v1/types/{type}/pause", type, null);
        wire.send(ApiKeysForTests.ADMIN_KEY, "POST", "/api/v1/types/{type}/resume", type, null);
        wire.send(ApiKeysForTests.ADMIN_KEY, "GET", "/api/v1/types", null, null);
        wire.send(ApiKeysForTests.SUBMIT_KEY, "GET", "/api/v1/types", null, null);

        // A task with every optional member unset, one with most set (a callback needs an allowed host).
        String bare = wire.send(ApiKeysForTests.SUBMIT_KEY, "POST", "/api/v1/tasks", null,
                "{\"type\":\"noop\",\"payload\":{}," + far + "}").getString("id");
        String full = wire.send(ApiKeysForTests.SUBMIT_KEY, "POST", "/api/v1/tasks", null, "{\"type\":\"noop\","
                + "\"payload\":{\"n\":1}," + far + ",\"deadline\":\"2099-02-01T00:00:00Z\",\"concurrencyKey\":\"k\","
                + "\"dependsOn\":[\"" + bare + "\"]}")
                .getString("id");
        for (String id : List.of(bare, full)) {
            wire.send(ApiKeysForTests.SUBMIT_KEY, "GET", "/api/v1/tasks/{id}", id, null);
            wire.send(ApiKeysForTests.SUBMIT_KEY, "GET", "/api/v1/tasks/{id}/events", id, null);
            wire.send(ApiKeysForTests.ADMIN_KEY, "GET", "/api/v1/tasks/{id}/events", id, null);
        }
        wire.send(ApiKeysForTests.SUBMIT_KEY, "GET", "/api/v1/tasks?limit=3", null, null);
        wire.send(ApiKeysForTests.SUBMIT_KEY, "GET", "/api/v1/tasks?limit=3&fields=payload,result", null, null);
        wire.send(ApiKeysForTests.SUBMIT_KEY, "GET", "/api/v1/tasks/count", null, null);
        wire.send(ApiKeysForTests.SUBMIT_KEY, "POST", "/api/v1/tasks/{id}/cancel", full, null);
        wire.send(ApiKeysForTests.SUBMIT_KEY, "POST", "/api/v1/tasks/{id}/retry", full, null);
        wire.send(ApiKeysForTests.SUBMIT_KEY, "GET", "/api/v1/tasks/{id}", UUID.randomUUID().toString(), null, 404);

        // A batch of one task stored and one refused, kept open, then closed.
        JsonPath stored = wire.send(ApiKeysForTests.SUBMIT_KEY, "POST", "/api/v1/tasks/batch", null, "{\"tasks\":["
                + "{\"type\":\"noop\",\"payload\":{}," + far + "},{\"type\":\"noop\",\"payload\":{},\"priority\":5000}],"
                + "\"then\":{\"type\":\"noop\",\"payload\":{}},\"open\":true}");
        String batch = stored.getString("batch.id");
        String batchTask = stored.getString("items[0].task.id");
        wire.send(ApiKeysForTests.SUBMIT_KEY, "GET", "/api/v1/batches", null, null);
        wire.send(ApiKeysForTests.SUBMIT_KEY, "GET", "/api/v1/batches/{id}", batch, null);
        wire.send(ApiKeysForTests.SUBMIT_KEY, "POST", "/api/v1/batches/{id}/close", batch, null);

        // A remote worker's claims: one completed, one failed, one released.
        for (int i = 0; i < 3; i++) {
            wire.send(ApiKeysForTests.SUBMIT_KEY, "POST", "/api/v1/tasks", null, "{\"type\":\"" + type
                    + "\",\"payload\":{}}");
        }
        // The profile's leases are 3 s, and each answer's check takes a while: the claims are renewed each second.
        List<String> claims = new CopyOnWriteArrayList<>();
        try (WorkerApiCalls.Heartbeats kept = WorkerApiCalls.heartbeating(ApiKeysForTests.ANY_WORKER_KEY, claims)) {
            long end = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (claims.size() < 3 && System.nanoTime() < end) {
                claims.addAll(wire.send(ApiKeysForTests.ANY_WORKER_KEY, "POST", "/api/v1/claims", null, "{\"types\":[\""
                        + type + "\"],\"max\":3,\"wait\":\"5s\"}").getList("claims.claimId"));
            }
            assertEquals(3, claims.size(), "claims of the remote type's tasks");
            wire.send(ApiKeysForTests.ANY_WORKER_KEY, "POST", "/api/v1/claims/{claimId}/heartbeat", claims.get(0), null);
            wire.send(ApiKeysForTests.ANY_WORKER_KEY, "POST", "/api/v1/claims/{claimId}/complete", claims.get(0),
                    "{\"result\":{\"ok\":true}}");
            wire.send(ApiKeysForTests.ANY_WORKER_KEY, "POST", "/api/v1/claims/{claimId}/fail", claims.get(1),
                    "{\"error\":\"boom\",\"retryable\":false}");
            wire.send(ApiKeysForTests.ANY_WORKER_KEY, "POST", "/api/v1/claims/{claimId}/release", claims.get(2), null);
        }
        wire.send(ApiKeysForTests.ADMIN_KEY, "GET", "/api/v1/workers", null, null);
        wire.send(ApiKeysForTests.SUBMIT_KEY, "GET", "/api/v1/tasks?limit=3&type=" + type + "&fields=payload,result",
                null, null);

        // Bulk actions on the remote type's tasks (no other test's), each followed until done; then the type goes.
        wire.done(wire.send(ApiKeysForTests.SUBMIT_KEY, "POST", "/api/v1/tasks/actions/retry", null, "{\"type\":\""
                + type + "\",\"status\":\"DEAD\"}").getString("id"));
        wire.done(wire.send(ApiKeysForTests.SUBMIT_KEY, "POST", "/api/v1/tasks/actions/cancel", null, "{\"type\":\""
                + type + "\"}").getString("id"));
        wire.send(ApiKeysForTests.ADMIN_KEY, "DELETE", "/api/v1/types/{type}", type, null);
        wire.send(ApiKeysForTests.SUBMIT_KEY, "POST", "/api/v1/tasks/{id}/cancel", bare, null);
        wire.send(ApiKeysForTests.SUBMIT_KEY, "POST", "/api/v1/tasks/{id}/cancel", batchTask, null);

        wire.send(ApiKeysForTests.ADMIN_KEY, "POST", "/api/v1/schedules", null, "{\"name\":\"" + type + "\","
                + "\"cron\":\"0 0 1 1 *\",\"type\":\"noop\",\"payload\":{}}");
        wire.send(ApiKeysForTests.ADMIN_KEY, "GET", "/api/v1/schedules/{name}", type, null);
        wire.send(ApiKeysForTests.ADMIN_KEY, "PATCH", "/api/v1/schedules/{name}", type, "{\"paused\":true}");
        wire.send(ApiKeysForTests.ADMIN_KEY, "GET", "/api/v1/schedules", null, null);
        wire.send(ApiKeysForTests.ADMIN_KEY, "DELETE", "/api/v1/schedules/{name}", type, null);
        wire.send(ApiKeysForTests.ADMIN_KEY, "GET", "/api/v1/stats", null, null);
        wire.send(ApiKeysForTests.ADMIN_KEY, "GET", "/api/v1/audit?limit=2", null, null);
        wire.send(ApiKeysForTests.ADMIN_KEY, "GET", "/api/v1/stats/history?step=5m", null, null);

        String key = "wire" + Long.toHexString(System.nanoTime());
        wire.send(ApiKeysForTests.ADMIN_KEY, "POST", "/api/v1/keys", null, "{\"name\":\"" + key + "\",\"role\":"
                + "\"worker\",\"types\":[\"resize\"],\"rate\":\"10/s\",\"allowedHosts\":[]}");
        wire.send(ApiKeysForTests.ADMIN_KEY, "GET", "/api/v1/keys", null, null);
        wire.send(ApiKeysForTests.ADMIN_KEY, "GET", "/api/v1/keys/{name}", key, null);
        wire.send(ApiKeysForTests.ADMIN_KEY, "PATCH", "/api/v1/keys/{name}", key, "{\"maxUnfinished\":5}");
        wire.send(ApiKeysForTests.ADMIN_KEY, "POST", "/api/v1/keys/{name}/rotate", key, "{\"overlap\":\"1m\"}");
        wire.send(ApiKeysForTests.ADMIN_KEY, "DELETE", "/api/v1/keys/{name}", key, null);

        assertEquals(Set.of(), wire.mismatches, wire.mismatches.size() + " mismatches of answers and their schemas");
        Set<String> unchecked = new TreeSet<>(wire.answeringJson);
        unchecked.removeAll(wire.checked);
        assertEquals(Set.of(), unchecked, "operations answering JSON that this test did not call");
    }

    /** Sends requests and validates each answer against the schema the document gives its operation and status. */
    private static final class WireCheck {

        private final JsonObject document;
        private final Set<String> mismatches = new TreeSet<>();
        private final Set<String> checked = new TreeSet<>();
        private final Set<String> answeringJson = new TreeSet<>();

        WireCheck(JsonNode document) {
            this.document = new JsonObject(document.toString());
            // Closed models: a member the service sends that its schema does not declare is a mismatch too.
            this.document.getJsonObject("components").getJsonObject("schemas").forEach(component -> {
                JsonObject schema = (JsonObject) component.getValue();
                if (schema.containsKey("properties") && !schema.containsKey("additionalProperties")) {
                    schema.put("additionalProperties", false);
                }
                schema.getJsonArray("required", new JsonArray()).forEach(name -> {
                    if (!schema.getJsonObject("properties").containsKey((String) name)) {
                        mismatches.add(component.getKey() + " requires " + name + ", not one of its properties");
                    }
                });
            });
            operations(document, (at, operation) -> operation.path("responses").properties().forEach(answer -> {
                if (answer.getKey().startsWith("2") && answer.getValue().path("content").has("application/json")) {
                    answeringJson.add(operation.path("operationId").asText());
                }
            }));
        }

        /** The answer of {@code method path} ({@code {...}} in it replaced by {@code parameter}), checked. */
        JsonPath send(String key, String method, String path, String parameter, String body) {
            return send(key, method, path, parameter, body, 0);
        }

        /** Follows a bulk action until it is DONE. */
        void done(String action) throws InterruptedException {
            long end = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (!"DONE".equals(send(ApiKeysForTests.SUBMIT_KEY, "GET", "/api/v1/actions/{id}", action, null)
                    .getString("state"))) {
                assertTrue(System.nanoTime() < end, "action " + action + " not done");
                Thread.sleep(100);
            }
        }

        /** As above, answered {@code status} (0: any success). */
        JsonPath send(String key, String method, String path, String parameter, String body, int status) {
            RequestSpecification request = given().auth().oauth2(key);
            if (body != null) {
                request = request.contentType("application/json").body(body);
            }
            Response answer = parameter == null ? request.request(method, path)
                    : request.request(method, path.replaceFirst("\\{[^}]+}", parameter));
            String template = path.replaceFirst("\\?.*", "");
            String at = method + " " + path + " " + answer.statusCode();
            assertTrue(status == 0 ? answer.statusCode() < 300 : answer.statusCode() == status, () -> at + " "
                    + answer.asString());
            JsonObject operation = document.getJsonObject("paths").getJsonObject(template, new JsonObject())
                    .getJsonObject(method.toLowerCase(Locale.ROOT), new JsonObject());
            JsonObject content = operation.getJsonObject("responses", new JsonObject())
                    .getJsonObject(String.valueOf(answer.statusCode()), new JsonObject()).getJsonObject("content");
            String mediaType = answer.contentType().replaceFirst(";.*", "");
            if (content == null || !content.containsKey(mediaType)) {
                if (!answer.asString().isEmpty() || content != null) {
                    mismatches.add(at + " answers " + mediaType + " the document does not list: " + answer.asString());
                }
                return answer.jsonPath();
            }
            checked.add(operation.getString("operationId"));
            JsonObject schema = content.getJsonObject(mediaType).getJsonObject("schema").copy()
                    .put("components", document.getJsonObject("components"));
            OutputUnit result = Validator.create(JsonSchema.of(schema), new JsonSchemaOptions().setDraft(Draft.DRAFT202012)
                    .setBaseUri("urn:taskfence:openapi").setOutputFormat(OutputFormat.Basic))
                    .validate(Json.decodeValue(answer.asString()));
            if (!Boolean.TRUE.equals(result.getValid())) {
                mismatches.addAll(why(method + " " + template + " " + answer.statusCode(),
                        result.getErrors() == null ? List.of(result) : result.getErrors()));
            }
            return answer.jsonPath();
        }
    }

    /**
     * The validator's errors, each at most once a place (an item's index as *): only why, not that a member or item
     * "does not match" (the validator says so of each level above a failure), nor that a member failing its own
     * schema is not an additional property either.
     */
    private static Set<String> why(String at, List<OutputUnit> errors) {
        Map<String, Set<String>> byPlace = new TreeMap<>();
        for (OutputUnit error : errors) {
            String message = String.valueOf(error.getError());
            if (!message.startsWith("A subschema had errors") && !message.startsWith("Items did not match")
                    && !message.endsWith("does not match schema")) {
                byPlace.computeIfAbsent(String.valueOf(error.getInstanceLocation()).replaceAll("/[0-9]+", "/*"),
                        place -> new TreeSet<>()).add(message);
            }
        }
        Set<String> why = new TreeSet<>();
        byPlace.forEach((place, messages) -> {
            if (messages.size() > 1) {
                messages.removeIf(message -> message.endsWith("does not match additional properties schema"));
            }
            messages.forEach(message -> why.add(at + ": " + place + ": " + message));
        });
        return why;
    }

    private static final Set<String> JSON_OBJECTS = Set.of("payload", "filter", "callback", "schema");

    /** Getters of Jackson's JsonNode and of JDK value types, as a bean scan would describe them. */
    private static final Set<String> BEAN_PROPERTIES = Set.of("empty", "valueNode", "containerNode", "missingNode",
            "pojo", "nodeType", "integralNumber", "floatingPointNumber", "bigDecimal", "bigInteger", "textual", "binary",
            "epochSecond", "nano", "mostSignificantBits", "leastSignificantBits", "negative", "zero", "units");

    /** Packages whose class names are no schema names of the API. */
    private static final List<String> JAVA_PACKAGES = List.of("java.lang.", "java.util.", "java.time.", "java.net.",
            "java.math.", "java.io.", "com.fasterxml.jackson.databind.", "com.fasterxml.jackson.databind.node.",
            "com.fasterxml.jackson.core.");

    /**
     * Each success answer other than 200 with a body of its own schema, by operationId (DESIGN.md, "REST API"); "" for
     * a 204. The others answer 200 alone.
     */
    private static final Map<String, Map<String, String>> SUCCESS = Map.ofEntries(
            Map.entry("createKey", Map.of("201", "CreatedKey")),
            Map.entry("revokeKey", Map.of("204", "")),
            Map.entry("submitTask", Map.of("201", "Task", "200", "Task")),
            Map.entry("cancelMatching", Map.of("202", "ActionView", "200", "ActionView")),
            Map.entry("retryMatching", Map.of("202", "ActionView", "200", "ActionView")),
            Map.entry("createSchedule", Map.of("201", "Schedule")),
            Map.entry("deleteSchedule", Map.of("204", "")),
            Map.entry("declareType", Map.of("201", "TypeState", "200", "TypeState")),
            Map.entry("undeclareType", Map.of("204", "")),
            Map.entry("reportClaimProgress", Map.of("204", "")));

    private JsonNode document() throws Exception {
        return new ObjectMapper().readTree(given().queryParam("format", "json").get(management.resolve("/q/openapi"))
                .then().statusCode(200).extract().asString());
    }

    private static void operations(JsonNode document, BiConsumer<String, JsonNode> each) {
        document.path("paths").properties().forEach(path -> {
            if (!path.getKey().startsWith("/test-only/")) {
                path.getValue().properties().forEach(method -> each.accept(method.getKey() + " " + path.getKey(),
                        method.getValue()));
            }
        });
    }

    /** Each object of the document, with where it is. */
    private static void walk(JsonNode node, String at, BiConsumer<String, JsonNode> each) {
        if (node.isObject()) {
            each.accept(at, node);
            node.properties().forEach(member -> walk(member.getValue(), at + "/" + member.getKey(), each));
        } else if (node.isArray()) {
            for (int i = 0; i < node.size(); i++) {
                walk(node.get(i), at + "/" + i, each);
            }
        }
    }

    private static Optional<String> javaType(String name) {
        for (String in : JAVA_PACKAGES) {
            try {
                return Optional.of(Class.forName(in + name, false, OpenApiDocumentTest.class.getClassLoader()).getName());
            } catch (ClassNotFoundException | LinkageError notThere) {
                // not of this package
            }
        }
        return Optional.empty();
    }

    private static boolean isType(JsonNode schema, String type) {
        JsonNode types = schema.path("type");
        return types.isArray() ? types.toString().contains('"' + type + '"') : type.equals(types.asText());
    }

    private static String refName(JsonNode schema) {
        String ref = schema.path("$ref").asText();
        return ref.substring(ref.lastIndexOf('/') + 1);
    }
}
