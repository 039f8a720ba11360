package io.taskfence.types;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.taskfence.TaskfenceConfig;

/** A type's payload schema, inline or from a file: what it refuses, said with where; a schema that is none stops the start. */
class PayloadSchemasTest {

    private static final String IMAGE = "{\"type\":\"object\",\"required\":[\"image\"],"
            + "\"properties\":{\"image\":{\"type\":\"string\"},\"width\":{\"type\":\"integer\",\"minimum\":1}}}";

    @Test
    void aPayloadThatBreaksTheSchemaIsRefusedNamingWhere() throws Exception {
        PayloadSchemas schemas = schemas(Map.of("resize", type(IMAGE, null)));
        assertEquals(List.of(), schemas.problems("resize", json("{\"image\":\"a.png\",\"width\":640}")));
        assertEquals(List.of(), schemas.problems("noop", json("{\"anything\":1}")), "a type without a schema");
        List<String> problems = schemas.problems("resize", json("{\"image\":5,\"width\":0}"));
        assertTrue(problems.stream().anyMatch(problem -> problem.startsWith("payload/image: ")), problems.toString());
        assertTrue(problems.stream().anyMatch(problem -> problem.startsWith("payload/width: ")), problems.toString());
        assertTrue(!schemas.problems("resize", json("{}")).isEmpty(), "a required property missing");
    }

    @Test
    void aSchemaIsReadFromItsFile(@TempDir Path dir) throws Exception {
        Path file = Files.writeString(dir.resolve("resize.json"), IMAGE);
        PayloadSchemas schemas = schemas(Map.of("resize", type(null, file.toString())));
        assertEquals(1, schemas.problems("resize", json("{\"image\":[]}")).size());
    }

    @Test
    void aSchemaThatIsNoneStopsTheStartNamingTheKey(@TempDir Path dir) {
        IllegalStateException notJson = assertThrows(IllegalStateException.class,
                () -> PayloadSchemas.read(Map.of("resize", type("{\"type\":", null))));
        assertTrue(notJson.getMessage().startsWith("taskfence.types.resize.schema is not a JSON object"),
                notJson.getMessage());
        IllegalStateException both = assertThrows(IllegalStateException.class,
                () -> PayloadSchemas.read(Map.of("resize", type(IMAGE, "x.json"))));
        assertTrue(both.getMessage().contains("not both"), both.getMessage());
        IllegalStateException missing = assertThrows(IllegalStateException.class,
                () -> PayloadSchemas.read(Map.of("resize", type(null, dir.resolve("none.json").toString()))));
        assertTrue(missing.getMessage().startsWith("taskfence.types.resize.schema-file cannot be read"),
                missing.getMessage());
    }

    private static PayloadSchemas schemas(Map<String, TaskfenceConfig.Type> types) {
        return new PayloadSchemas(PayloadSchemas.read(types), type -> Optional.empty());
    }

    private static ObjectNode json(String text) throws Exception {
        return (ObjectNode) new ObjectMapper().readTree(text);
    }

    private static TaskfenceConfig.Type type(String schema, String schemaFile) {
        return new TaskfenceConfig.Type() {
            @Override
            public boolean remote() {
                return true;
            }

            @Override
            public Optional<String> schema() {
                return Optional.ofNullable(schema);
            }

            @Override
            public Optional<String> schemaFile() {
                return Optional.ofNullable(schemaFile);
            }

            @Override
            public OptionalInt maxConcurrency() {
                return OptionalInt.empty();
            }

            @Override
            public Optional<String> rate() {
                return Optional.empty();
            }

            @Override
            public OptionalInt maxPerKey() {
                return OptionalInt.empty();
            }

            @Override
            public Optional<String> ratePerKey() {
                return Optional.empty();
            }

            @Override
            public Optional<java.time.Duration> timeout() {
                return Optional.empty();
            }
        };
    }
}
