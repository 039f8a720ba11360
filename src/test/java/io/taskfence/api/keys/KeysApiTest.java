package io.taskfence.api.keys;

import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.startsWith;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.UUID;

import javax.sql.DataSource;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import io.restassured.specification.RequestSpecification;
import io.taskfence.keys.KeySecret;
import io.taskfence.task.Sql;
import io.taskfence.testing.ApiKeysForTests;
import io.taskfence.testing.TestServers;

/**
 * API keys at run time (DESIGN.md, "REST API", "Keys"): a key made here works at once and its secret is shown once
 * and stored as a digest only; its limits apply and can be changed; a rotation keeps the old secret for the overlap
 * asked; a revoked key is refused and its name is not given again; only admin keys manage keys, none grants beyond
 * its own limits, and configured keys are not changed here. (Across replicas: {@code KeysIT}.)
 */
@QuarkusTest
@TestServers
class KeysApiTest {

    private static final String FUTURE = "2099-01-01T00:00:00Z";

    @Inject
    DataSource db;

    @Test
    void aKeyMadeHereWorksAtOnceWithItsLimitsAndItsSecretIsStoredAsADigestOnly() {
        String name = fresh();
        io.restassured.response.Response answer = admin().contentType("application/json")
                .body("{\"name\":\"" + name + "\",\"role\":\"submit\",\"maxUnfinished\":2,\"maxPriority\":7}")
                .post("/api/v1/keys");
        JsonPath made = answer.then().statusCode(201).header("Location", containsString("/api/v1/keys/" + name))
                .body("key.name", is(name)).body("key.role", is("submit")).body("key.maxUnfinished", is(2))
                .body("key.configured", is(false)).body("secret", startsWith(KeySecret.PREFIX))
                .body("callbackSecret", startsWith("whsec_")).extract().jsonPath();
        String secret = made.getString("secret");

        as(secret).contentType("application/json").body("{\"type\":\"noop\",\"payload\":{},\"runAt\":\"" + FUTURE + "\"}")
                .post("/api/v1/tasks").then().statusCode(201).body("owner", is(name));
        as(secret).contentType("application/json").body("{\"type\":\"noop\",\"payload\":{},\"priority\":8}")
                .post("/api/v1/tasks").then().statusCode(400).body("detail", containsString("at most 7"));
        as(secret).contentType("application/json").body("{\"type\":\"noop\",\"payload\":{},\"runAt\":\"" + FUTURE + "\"}")
                .post("/api/v1/tasks").then().statusCode(201);
        as(secret).contentType("application/json").body("{\"type\":\"noop\",\"payload\":{},\"runAt\":\"" + FUTURE + "\"}")
                .post("/api/v1/tasks").then().statusCode(429);
        as(secret).contentType("application/json").body("{\"name\":\"" + fresh() + "\",\"role\":\"submit\"}")
                .post("/api/v1/keys").then().statusCode(403);

        String listed = admin().get("/api/v1/keys").then().statusCode(200).extract().asString();
        assertTrue(listed.contains("\"" + name + "\""), listed);
        assertFalse(listed.contains(secret) || listed.contains("whsec_"), "no secret in a listing");
        String one = admin().get("/api/v1/keys/" + name).then().statusCode(200).body("maxPriority", is(7)).extract()
                .asString();
        assertFalse(one.contains(secret), one);
        assertEquals(HexFormat.of().formatHex(KeySecret.digest(secret)), Sql.value(db,
                "select encode(digest, 'hex') from api_key_secrets where key_name = ?", name));
        assertEquals(0, Sql.count(db, "select count(*) from api_keys k where k::text like ?", "%" + secret + "%")
                + Sql.count(db, "select count(*) from api_key_secrets s where s::text like ?", "%" + secret + "%")
                + Sql.count(db, "select count(*) from audit_log a where a::text like ?", "%" + secret + "%"),
                "the secret is in no table, the audit log included");
        // The creation is audited, with the key's URL as what it made.
        await().atMost(Duration.ofSeconds(10)).until(() -> Sql.count(db, "select count(*) from audit_log where "
                + "operation = 'createKey' and status = 201 and request_id = ? and location like ?",
                answer.header("X-Request-Id"), "%/api/v1/keys/" + name) == 1);

        admin().contentType("application/json").body("{\"maxUnfinished\":3,\"maxPriority\":9}")
                .patch("/api/v1/keys/" + name).then().statusCode(200).body("maxUnfinished", is(3))
                .body("maxPriority", is(9)).body("role", is("submit"));
        as(secret).contentType("application/json").body("{\"type\":\"noop\",\"payload\":{},\"priority\":9,\"runAt\":\""
                + FUTURE + "\"}").post("/api/v1/tasks").then().statusCode(201);
        cleanUp(name);
    }

    @Test
    void aRevokedKeyIsRefusedAndItsNameIsNotGivenAgain() {
        String name = fresh();
        String secret = make(admin(), name, "submit");
        as(secret).get("/api/v1/tasks").then().statusCode(200);
        admin().delete("/api/v1/keys/" + name).then().statusCode(204);
        as(secret).get("/api/v1/tasks").then().statusCode(401);
        admin().delete("/api/v1/keys/" + name).then().statusCode(404);
        admin().get("/api/v1/keys/" + name).then().statusCode(404);
        admin().contentType("application/json").body("{\"name\":\"" + name + "\",\"role\":\"submit\"}")
                .post("/api/v1/keys").then().statusCode(409).body("detail", containsString("exists or existed"));
        assertEquals(0, Sql.count(db, "select count(*) from api_key_secrets where key_name = ?", name));
    }

    @Test
    void aRotatedKeysOldSecretWorksForTheOverlapAsked() {
        String name = fresh();
        String first = make(admin(), name, "submit");
        Instant before = Instant.now();
        JsonPath rotated = admin().contentType("application/json").body("{\"overlap\":\"1h\"}")
                .post("/api/v1/keys/" + name + "/rotate").then().statusCode(200).body("key.name", is(name))
                .extract().jsonPath();
        String second = rotated.getString("secret");
        Instant ends = Instant.parse(rotated.getString("previousSecretsExpireAt"));
        assertTrue(!ends.isBefore(before.plus(Duration.ofMinutes(59))) && ends.isBefore(Instant.now().plusSeconds(3601)),
                "the overlap ends an hour after the rotation: " + ends);
        as(first).get("/api/v1/tasks").then().statusCode(200);
        as(second).get("/api/v1/tasks").then().statusCode(200);

        // An overlap of 0s ends every secret before the new one at once: the first too, whose hour is not over.
        String third = admin().contentType("application/json").body("{\"overlap\":\"0s\"}")
                .post("/api/v1/keys/" + name + "/rotate").then().statusCode(200).extract().path("secret");
        as(first).get("/api/v1/tasks").then().statusCode(401);
        as(second).get("/api/v1/tasks").then().statusCode(401);
        as(third).get("/api/v1/tasks").then().statusCode(200);
        admin().contentType("application/json").body("{\"overlap\":\"169h\"}").post("/api/v1/keys/" + name + "/rotate")
                .then().statusCode(400).body("detail", containsString("at most 168h"));
        cleanUp(name);
    }

    @Test
    void noKeyGrantsMoreThanTheKeyThatMakesItHas() {
        RequestSpecification capped = given().auth().oauth2(ApiKeysForTests.CAPPED_ADMIN_KEY);
        int cap = ApiKeysForTests.CAPPED_MAX_PRIORITY;
        capped.contentType("application/json").body("{\"name\":\"" + fresh() + "\",\"role\":\"admin\"}")
                .post("/api/v1/keys").then().statusCode(403).body("detail", containsString("maxPriority must be at most "
                        + cap));
        given().auth().oauth2(ApiKeysForTests.CAPPED_ADMIN_KEY).contentType("application/json")
                .body("{\"name\":\"" + fresh() + "\",\"role\":\"submit\",\"maxPriority\":" + (cap + 1) + "}")
                .post("/api/v1/keys").then().statusCode(403);
        String narrow = fresh();
        given().auth().oauth2(ApiKeysForTests.CAPPED_ADMIN_KEY).contentType("application/json")
                .body("{\"name\":\"" + narrow + "\",\"role\":\"submit\",\"maxPriority\":" + cap + "}")
                .post("/api/v1/keys").then().statusCode(201);
        given().auth().oauth2(ApiKeysForTests.CAPPED_ADMIN_KEY).contentType("application/json")
                .body("{\"maxPriority\":" + (cap + 1) + "}").patch("/api/v1/keys/" + narrow).then().statusCode(403);

        // A key with more than the caller is not the caller's to change, rotate (its secret) or revoke.
        String wide = fresh();
        make(admin(), wide, "submit");
        given().auth().oauth2(ApiKeysForTests.CAPPED_ADMIN_KEY).contentType("application/json").body("{\"overlap\":\"0s\"}")
                .post("/api/v1/keys/" + wide + "/rotate").then().statusCode(403).body("detail", containsString(wide));
        given().auth().oauth2(ApiKeysForTests.CAPPED_ADMIN_KEY).contentType("application/json").body("{\"weight\":1}")
                .patch("/api/v1/keys/" + wide).then().statusCode(403);
        given().auth().oauth2(ApiKeysForTests.CAPPED_ADMIN_KEY).delete("/api/v1/keys/" + wide).then().statusCode(403);
        admin().get("/api/v1/keys/" + wide).then().statusCode(200);
        given().auth().oauth2(ApiKeysForTests.CAPPED_ADMIN_KEY).delete("/api/v1/keys/" + narrow).then().statusCode(204);
        cleanUp(wide);
    }

    @Test
    void anAdminWithLimitsGrantsNoneAboveThemNorLeavesOneOut() {
        String limited = fresh();
        String secret = admin().contentType("application/json").body("{\"name\":\"" + limited + "\",\"role\":\"admin\","
                + "\"maxUnfinished\":10,\"rate\":\"100/s\",\"maxPriority\":50,\"allowedHosts\":[]}")
                .post("/api/v1/keys").then().statusCode(201).extract().path("secret");
        String within = ",\"maxUnfinished\":10,\"rate\":\"6000/m\",\"weight\":1,\"maxPriority\":50,\"allowedHosts\":[]";
        for (String[] beyond : new String[][] {
                { "\"maxUnfinished\":11,\"rate\":\"100/s\",\"weight\":1,\"maxPriority\":50,\"allowedHosts\":[]", "maxUnfinished" },
                { "\"rate\":\"100/s\",\"weight\":1,\"maxPriority\":50,\"allowedHosts\":[]", "unlimited" },
                { "\"maxUnfinished\":10,\"rate\":\"101/s\",\"weight\":1,\"maxPriority\":50,\"allowedHosts\":[]", "rate" },
                { "\"maxUnfinished\":10,\"weight\":1,\"maxPriority\":50,\"allowedHosts\":[]", "rate" },
                { "\"maxUnfinished\":10,\"rate\":\"100/s\",\"weight\":2,\"maxPriority\":50,\"allowedHosts\":[]", "weight" },
                { "\"maxUnfinished\":10,\"rate\":\"100/s\",\"weight\":1,\"allowedHosts\":[]", "maxPriority" },
                { "\"maxUnfinished\":10,\"rate\":\"100/s\",\"weight\":1,\"maxPriority\":50", "allowedHosts" } }) {
            as(secret).contentType("application/json").body("{\"name\":\"" + fresh() + "\",\"role\":\"submit\","
                    + beyond[0] + "}").post("/api/v1/keys").then().statusCode(403)
                    .body("detail", containsString(beyond[1]));
        }
        String made = fresh();
        as(secret).contentType("application/json").body("{\"name\":\"" + made + "\",\"role\":\"submit\"" + within + "}")
                .post("/api/v1/keys").then().statusCode(201);
        as(secret).delete("/api/v1/keys/" + made).then().statusCode(204);
        cleanUp(limited);
    }

    @Test
    void anUnknownSecretIsRefusedEveryTime() {
        String made = KeySecret.PREFIX + UUID.randomUUID();
        for (int i = 0; i < 3; i++) {
            as(made).get("/api/v1/tasks").then().statusCode(401);
        }
    }

    @Test
    void onlyAdminKeysManageKeysAndConfiguredKeysAreNotChangedHere() {
        for (String other : List.of(ApiKeysForTests.SUBMIT_KEY, ApiKeysForTests.WORKER_KEY)) {
            given().auth().oauth2(other).contentType("application/json").body("{\"name\":\"" + fresh()
                    + "\",\"role\":\"submit\"}").post("/api/v1/keys").then().statusCode(403);
            given().auth().oauth2(other).get("/api/v1/keys").then().statusCode(403);
        }
        given().get("/api/v1/keys").then().statusCode(401);
        String configured = ApiKeysForTests.SUBMIT_KEY_NAME;
        admin().get("/api/v1/keys/" + configured).then().statusCode(200).body("configured", is(true));
        admin().contentType("application/json").body("{\"weight\":2}").patch("/api/v1/keys/" + configured).then()
                .statusCode(409).body("detail", containsString("taskfence.auth.keys." + configured));
        admin().contentType("application/json").body("{\"overlap\":\"0s\"}").post("/api/v1/keys/" + configured
                + "/rotate").then().statusCode(409);
        admin().delete("/api/v1/keys/" + configured).then().statusCode(409);
        admin().contentType("application/json").body("{\"name\":\"" + configured + "\",\"role\":\"submit\"}")
                .post("/api/v1/keys").then().statusCode(409);
        given().auth().oauth2(ApiKeysForTests.SUBMIT_KEY).get("/api/v1/tasks").then().statusCode(200);
    }

    @Test
    void badKeysAreRefusedWithTheFieldAtFault() {
        refused("{\"name\":\"Bad!\",\"role\":\"submit\"}", "name");
        refused("{\"name\":\"" + fresh() + "\",\"role\":\"root\"}", "role");
        refused("{\"name\":\"" + fresh() + "\",\"role\":\"worker\"}", "types");
        refused("{\"name\":\"" + fresh() + "\",\"role\":\"submit\",\"types\":[\"resize\"]}", "types");
        refused("{\"name\":\"" + fresh() + "\",\"role\":\"worker\",\"types\":[\"nosuchtype\"]}", "types");
        refused("{\"name\":\"" + fresh() + "\",\"role\":\"worker\",\"types\":[\"*\",\"resize\"]}", "types");
        refused("{\"name\":\"" + fresh() + "\",\"role\":\"submit\",\"rate\":\"fast\"}", "rate");
        refused("{\"name\":\"" + fresh() + "\",\"role\":\"submit\",\"weight\":101}", "weight");
        refused("{\"name\":\"" + fresh() + "\",\"role\":\"submit\",\"allowedHosts\":[\"https://not-listed.example\"]}",
                "allowedHosts");
        admin().contentType("application/json").body("{\"overlap\":\"soon\"}").post("/api/v1/keys/" + fresh()
                + "/rotate").then().statusCode(400);
        admin().contentType("application/json").body("{\"weight\":2}").patch("/api/v1/keys/" + fresh()).then()
                .statusCode(404);
    }

    @Test
    void aWorkerKeyMadeHereClaimsItsTypesOnly() {
        String name = fresh();
        String secret = given().auth().oauth2(ApiKeysForTests.ADMIN_KEY).contentType("application/json")
                .body("{\"name\":\"" + name + "\",\"role\":\"worker\",\"types\":[\"ocr\"]}").post("/api/v1/keys")
                .then().statusCode(201).body("key.types", is(List.of("ocr"))).extract().path("secret");
        as(secret).contentType("application/json").body("{\"types\":[\"ocr\"],\"max\":1}").post("/api/v1/claims")
                .then().statusCode(is(200));
        as(secret).contentType("application/json").body("{\"types\":[\"archive\"],\"max\":1}").post("/api/v1/claims")
                .then().statusCode(403);
        as(secret).get("/api/v1/tasks").then().statusCode(403);
        cleanUp(name);
    }

    private void refused(String body, String field) {
        JsonPath problem = admin().contentType("application/json").body(body).post("/api/v1/keys").then().statusCode(400)
                .extract().jsonPath();
        List<String> fields = new ArrayList<>(problem.getList("violations.field", String.class) == null ? List.of()
                : problem.getList("violations.field", String.class));
        fields.add(problem.getString("field"));
        assertTrue(fields.contains(field), "the problem names " + field + ": " + problem.prettify());
    }

    private static String make(RequestSpecification as, String name, String role) {
        return as.contentType("application/json").body("{\"name\":\"" + name + "\",\"role\":\"" + role + "\"}")
                .post("/api/v1/keys").then().statusCode(201).extract().path("secret");
    }

    private void cleanUp(String name) {
        Sql.run(db, "delete from tasks where owner = ?", name);
        admin().delete("/api/v1/keys/" + name).then().statusCode(204);
    }

    private static String fresh() {
        return "k" + UUID.randomUUID().toString().replace("-", "").substring(0, 16);
    }

    private static RequestSpecification admin() {
        return given().auth().oauth2(ApiKeysForTests.ADMIN_KEY);
    }

    private static RequestSpecification as(String secret) {
        return given().auth().oauth2(secret);
    }
}
