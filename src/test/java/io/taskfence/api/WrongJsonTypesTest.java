package io.taskfence.api;

import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.net.URI;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;
import io.taskfence.testing.ApiKeysForTests;
import io.taskfence.testing.TestServers;

/**
 * No answer to a body of the wrong JSON types speaks Java or Jackson (issue 41, item 4): for every operation of the
 * OpenAPI document with a JSON body, each property of its schema (into nested objects and array items) is sent alone
 * with a value of another JSON type (a number for a string, a string for a number, a boolean, an object or an array,
 * "not-a-uuid" for a UUID), and the answer is a 4xx problem whose detail names the property by its JSON path and holds
 * no Java type, class or library message.
 */
@QuarkusTest
@TestServers
class WrongJsonTypesTest {

    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
    private static final String SCHEDULE = "wrong-types-test";
    /**
     * The rest of a body, valid, where a field is checked only once the others pass (a payload's kind is the
     * service's rule, not Jackson's): the wrong value replaces its place in it.
     */
    private static final Map<String, String> VALID = Map.of(
            "post /api/v1/tasks", "{\"type\":\"noop\",\"payload\":{}}",
            "post /api/v1/tasks/batch", "{\"tasks\":[{\"type\":\"noop\",\"payload\":{}}],"
                    + "\"then\":{\"type\":\"noop\",\"payload\":{}}}",
            "post /api/v1/schedules", "{\"name\":\"" + SCHEDULE + "-new\",\"cron\":\"0 0 1 1 *\",\"type\":\"noop\","
                    + "\"payload\":{}}");
    @TestHTTPResource(value = "/", management = true)
    URI management;

    private final ObjectMapper json = new ObjectMapper();
    private Map<String, Object> schemas;

    @Test
    void everyPropertyOfEveryBodySentAsAnotherJsonTypeIsAProblemNamingItWithoutJava() throws Exception {
        Map<String, Object> document = json.readValue(given().queryParam("format", "json")
                .get(management.resolve("/q/openapi")).then().statusCode(200).extract().asString(), Map.class);
        schemas = map(map(document.get("components")).get("schemas"));
        given().auth().oauth2(ApiKeysForTests.ADMIN_KEY).contentType("application/json").body("{\"name\":\"" + SCHEDULE
                + "\",\"cron\":\"0 0 1 1 *\",\"type\":\"noop\",\"payload\":{},\"paused\":true}").post("/api/v1/schedules")
                .then().statusCode(201); // for its PATCH, which reads a payload only for a schedule there is
        try {
            walk(document);
        } finally {
            given().auth().oauth2(ApiKeysForTests.ADMIN_KEY).delete("/api/v1/schedules/" + SCHEDULE).then().statusCode(204);
        }
    }

    private void walk(Map<String, Object> document) throws Exception {
        List<String> failures = new ArrayList<>();
        Set<String> walked = new HashSet<>();
        int cases = 0;
        for (var path : map(document.get("paths")).entrySet()) {
            if (path.getKey().startsWith("/test-only/")) {
                continue;
            }
            for (var operation : map(path.getValue()).entrySet()) {
                Map<String, Object> body = map(map(operation.getValue()).get("requestBody"));
                Map<String, Object> schema = body == null ? null
                        : map(map(map(map(body.get("content")).get("application/json"))).get("schema"));
                if (schema == null) {
                    continue;
                }
                List<WrongValue> wrong = new ArrayList<>();
                properties(schema, List.of(), 0, wrong);
                assertTrue(resolve(schema).get("properties") != null, operation.getKey() + " " + path.getKey()
                        + ": no property found");
                for (WrongValue value : wrong) {
                    cases++;
                    walked.add(operation.getKey() + " " + path.getKey() + " " + value.path());
                    String failure = check(operation.getKey(), path.getKey(), value);
                    if (failure != null) {
                        failures.add(failure);
                    }
                }
            }
        }
        assertTrue(walked.contains("post /api/v1/tasks/batch tasks[0].dependsOn[0]"), "ids in a list of a list: " + walked);
        assertTrue(walked.contains("put /api/v1/types/{type} schema"), "an object of any members: " + walked);
        assertEquals(List.of(), failures, failures.size() + " of " + cases + " answers leak or do not name the field");
    }

    /** One property of a body, where it is, and the value of another JSON type sent for it. */
    private record WrongValue(List<Object> at, JsonNode value) {

        String path() {
            StringBuilder path = new StringBuilder();
            for (Object step : at) {
                if (step instanceof Integer index) {
                    path.append('[').append(index).append(']');
                } else {
                    path.append(path.isEmpty() ? "" : ".").append(step);
                }
            }
            return path.toString();
        }

        /** {@code valid} (an object) with this value at its place, the objects and arrays on the way made as needed. */
        JsonNode in(JsonNode valid) {
            JsonNode body = valid.deepCopy();
            JsonNode container = body;
            for (int i = 0; i < at.size(); i++) {
                Object step = at.get(i);
                JsonNode there = step instanceof Integer index ? container.get(index) : container.get((String) step);
                JsonNode next = i == at.size() - 1 ? value
                        : there != null && there.isContainerNode() ? there
                        : at.get(i + 1) instanceof Integer ? NODES.arrayNode() : NODES.objectNode();
                if (step instanceof Integer index) {
                    ArrayNode array = (ArrayNode) container;
                    if (index < array.size()) {
                        array.set(index, next);
                    } else {
                        array.add(next);
                    }
                } else {
                    ((ObjectNode) container).set((String) step, next);
                }
                container = next;
            }
            return body;
        }
    }

    /** Each property of {@code schema}, and those of its nested objects and array items, three levels down. */
    private void properties(Map<String, Object> schema, List<Object> at, int depth, List<WrongValue> wrong) {
        Map<String, Object> properties = map(resolve(schema).get("properties"));
        if (properties == null) {
            return;
        }
        for (var property : properties.entrySet()) {
            List<Object> here = new ArrayList<>(at);
            here.add(property.getKey());
            property(map(property.getValue()), here, depth, wrong);
        }
    }

    private void property(Map<String, Object> schema, List<Object> at, int depth, List<WrongValue> wrong) {
        String named = refName(schema);
        Map<String, Object> resolved = resolve(schema);
        Object type = resolved.get("type");
        if (named == null && type == null && !schema.containsKey("properties")) {
            return; // any JSON value (a claim's result): none is of a wrong type
        }
        if ("string".equals(type) && "uuid".equals(resolved.get("format"))) {
            wrong.add(new WrongValue(at, NODES.textNode("not-a-uuid")));
            wrong.add(new WrongValue(at, NODES.numberNode(12)));
        } else if ("string".equals(type)) {
            wrong.add(new WrongValue(at, NODES.numberNode(12)));
            wrong.add(new WrongValue(at, NODES.objectNode().put("a", 1)));
        } else if ("integer".equals(type) || "number".equals(type)) {
            wrong.add(new WrongValue(at, NODES.textNode("12")));
            wrong.add(new WrongValue(at, NODES.booleanNode(true)));
            if ("integer".equals(type)) {
                wrong.add(new WrongValue(at, NODES.numberNode(new BigDecimal("1.5"))));
                wrong.add(new WrongValue(at, NODES.numberNode(new BigInteger("2147483648"))));
            }
        } else if ("boolean".equals(type)) {
            wrong.add(new WrongValue(at, NODES.textNode("yes")));
            wrong.add(new WrongValue(at, NODES.numberNode(1)));
        } else if ("array".equals(type)) {
            wrong.add(new WrongValue(at, NODES.textNode("not an array")));
            if (depth < 3) {
                List<Object> item = new ArrayList<>(at);
                item.add(0);
                property(map(resolved.get("items")), item, depth + 1, wrong);
            }
        } else if ("object".equals(type) || resolved.containsKey("properties")) {
            wrong.add(new WrongValue(at, NODES.arrayNode().add(1)));
            if (depth < 3) {
                properties(resolved, at, depth + 1, wrong);
            }
        } else {
            throw new AssertionError(at + ": a schema this test does not know: " + schema);
        }
    }

    /** Why the answer to this value is wrong, or null. */
    private String check(String method, String path, WrongValue value) throws Exception {
        String key = path.startsWith("/api/v1/claims") ? ApiKeysForTests.WORKER_KEY : ApiKeysForTests.ADMIN_KEY;
        String target = path.replace("{id}", UUID.randomUUID().toString()).replace("{type}", "wrong-types-test")
                .replace("{name}", SCHEDULE).replace("{claimId}", "no-such-claim");
        String sent = json.writeValueAsString(value.in(json.readTree(VALID.getOrDefault(method + " " + path, "{}"))));
        Response answer = given().auth().oauth2(key).contentType("application/json").body(sent)
                .request(method.toUpperCase(), target);
        String at = method.toUpperCase() + " " + path + " " + sent + " → " + answer.statusCode() + " " + answer.asString();
        JsonNode problem = answer.statusCode() == 200 && path.equals("/api/v1/tasks/batch")
                ? json.readTree(answer.asString()).path("items").path(0).path("problem") // refused on its own
                : json.readTree(answer.asString());
        if (answer.statusCode() != 200 && !answer.contentType().startsWith("application/problem+json")) {
            return at + ": not a problem";
        }
        int status = problem.path("status").asInt();
        if (status < 400 || status > 499) {
            return at + ": not a 4xx";
        }
        String detail = problem.path("detail").asText();
        var leak = RawApi.leak(detail).or(() -> Optional.of("`").filter(detail::contains)); // none sent here
        if (leak.isPresent()) {
            return at + ": the detail holds '" + leak.get() + "'";
        }
        String field = value.path();
        String name = field.substring(field.lastIndexOf('.') + 1).replaceAll("\\[\\d+]", "");
        boolean named = detail.contains(name) && (detail.contains(field) || field.equals(problem.path("field").asText())
                || problem.path("violations").findValuesAsText("field").contains(field));
        return named ? null : at + ": does not name " + field;
    }

    private Map<String, Object> resolve(Map<String, Object> schema) {
        String named = refName(schema);
        return named == null ? schema : map(schemas.get(named));
    }

    private static String refName(Map<String, Object> schema) {
        Object ref = schema.get("$ref");
        return ref == null ? null : ((String) ref).substring(((String) ref).lastIndexOf('/') + 1);
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(Object value) {
        return (Map<String, Object>) value;
    }
}
