package io.taskfence.architecture;

import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static java.util.Map.entry;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import com.tngtech.archunit.core.domain.Dependency;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;

/**
 * The structure the packages' package-info files describe, held against the compiled main classes and the sources:
 * no package cycle, no dependency from a lower layer to a higher one, every write of a task row where the writers'
 * table says (DESIGN.md, "Task lifecycle"), each "May import" line true, and the size limits.
 */
class ArchitectureTest {

    /** A statement that writes task rows, with or without an alias: {@code insert into tasks}, {@code update tasks [t] set}. */
    static final Pattern TASK_WRITE = Pattern.compile(
            "(?i)\\binsert\\s+into\\s+tasks\\b|\\bupdate\\s+tasks(?:\\s+(?:as\\s+)?(?!set\\b)\\w+)?\\s+set\\b");
    private static final Pattern TASK_INSERT = Pattern.compile("(?i)\\binsert\\s+into\\s+tasks\\b");
    private static final Pattern STATUS = Pattern.compile(
            "'(WAITING|PENDING|ENQUEUED|PROCESSING|SUCCEEDED|FAILED|DEAD|CANCELLED)'");

    /**
     * Every class whose statements write task rows, and the moves they make ({@code from>to}; {@code ->to} for an
     * insert; {@code ?status} for a status they only read): the transitions table of DESIGN.md, by actor. A class that
     * writes no status (DependencyEdges marks the tasks depended on) has none.
     */
    private static final Map<String, Set<String>> WRITERS = Map.ofEntries(
            entry("task.submit.TaskInserts", Set.of("->PENDING", "->WAITING")),
            entry("task.dependency.DependencyEdges", Set.of()),
            // A dedupe submission changes the payload and runAt of the unstarted task its key holds, not its status.
            entry("task.submit.Dedupes", Set.of("?PENDING", "?WAITING")),
            entry("task.submit.Retries", Set.of("DEAD>PENDING", "CANCELLED>PENDING")),
            entry("task.transition.DispatchBatch", Set.of("PENDING>ENQUEUED", "FAILED>ENQUEUED")),
            entry("task.transition.AttemptTransitions", Set.of("ENQUEUED>PROCESSING", "PROCESSING>SUCCEEDED",
                    "PROCESSING>FAILED", "PROCESSING>DEAD", "PROCESSING>PENDING")),
            entry("task.transition.OperatorControls", Set.of("WAITING>CANCELLED", "PENDING>CANCELLED",
                    "ENQUEUED>CANCELLED", "PROCESSING>CANCELLED", "FAILED>CANCELLED")),
            // A progress report is written under the claim's condition and changes no status.
            entry("task.transition.ProgressReports", Set.of("?PROCESSING")),
            entry("task.transition.LeaseRecovery", Set.of("ENQUEUED>PENDING", "PROCESSING>FAILED", "PROCESSING>DEAD")),
            // A then task cancelled while it waited keeps its status and gets its batch's outcome all the same.
            entry("task.batch.BatchCompletions", Set.of("WAITING>PENDING", "CANCELLED>CANCELLED", "?DEAD")),
            entry("task.dependency.Dependents", Set.of("WAITING>PENDING", "WAITING>CANCELLED")));

    private static final Path MAIN_SOURCES = Path.of("src/main/java/io/taskfence");
    /** The Java client's library (clients/java) is main code too, held to the same limits. */
    private static final Path CLIENT_SOURCES = Path.of("clients/java/src/main/java/io/taskfence");
    private static final Path TRIGGERS = Path.of("src/main/resources/db/migration/R__task_triggers.sql");
    private static final int MAX_FILES_A_PACKAGE = 15;
    private static final int MAX_LINES_A_CLASS = 350;

    private static JavaClasses main;

    @BeforeAll
    static void importMainClasses() {
        main = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("io.taskfence");
    }

    @Test
    void packagesFormNoCycle() {
        slices().matching("io.taskfence.(**)").should().beFreeOfCycles().check(main);
    }

    @Test
    void noPackageDependsOnALayerAboveIt() {
        layeredArchitecture().consideringOnlyDependenciesInLayers()
                .layer("edge").definedBy("io.taskfence.api..", "io.taskfence.dashboard..", "io.taskfence.health..",
                        "io.taskfence.metrics..")
                .layer("actors").definedBy("io.taskfence.jobs..", "io.taskfence.worker..", "io.taskfence.remote..")
                .layer("schedules").definedBy("io.taskfence.schedule..")
                .layer("transitions").definedBy("io.taskfence.task.submit..", "io.taskfence.task.transition..",
                        "io.taskfence.task.batch..", "io.taskfence.task.action..", "io.taskfence.task.followup..",
                        "io.taskfence.task.dependency..")
                .layer("tasks").definedBy("io.taskfence.task", "io.taskfence.task.query..")
                .layer("parts").definedBy("io.taskfence.types..", "io.taskfence.handlers..", "io.taskfence.queue..",
                        "io.taskfence.signals..", "io.taskfence.tracing..", "io.taskfence.audit..")
                .layer("storage").definedBy("io.taskfence.store..", "io.taskfence.lock..")
                .layer("base").definedBy("io.taskfence.logging..")
                .whereLayer("edge").mayNotBeAccessedByAnyLayer()
                .whereLayer("actors").mayOnlyBeAccessedByLayers("edge")
                .whereLayer("schedules").mayOnlyBeAccessedByLayers("edge", "actors")
                .whereLayer("transitions").mayOnlyBeAccessedByLayers("edge", "actors", "schedules")
                .whereLayer("tasks").mayOnlyBeAccessedByLayers("edge", "actors", "schedules", "transitions")
                .whereLayer("parts").mayOnlyBeAccessedByLayers("edge", "actors", "schedules", "transitions", "tasks")
                .whereLayer("storage").mayOnlyBeAccessedByLayers("edge", "actors", "schedules", "transitions", "tasks",
                        "parts")
                .check(main);
    }

    /**
     * The writers' table is the code: the classes with statements that write task rows are exactly its classes, the
     * statuses each one's statements set are the targets of its moves, and name no status outside them.
     */
    @Test
    void taskRowsAreWrittenByTheWritersTableAndNoOneElse() throws IOException {
        Map<String, List<String>> found = taskWrites(main);
        assertEquals(new TreeSet<>(WRITERS.keySet()), new TreeSet<>(found.keySet()),
                "classes with statements that write task rows (update tasks ... set, insert into tasks)");
        for (Map.Entry<String, Set<String>> writer : WRITERS.entrySet()) {
            Set<String> named = found.get(writer.getKey()).stream().flatMap(ArchitectureTest::statuses)
                    .collect(Collectors.toCollection(TreeSet::new));
            Set<String> targets = writer.getValue().stream().filter(move -> move.contains(">"))
                    .map(move -> move.substring(move.indexOf('>') + 1)).collect(Collectors.toCollection(TreeSet::new));
            Set<String> ends = writer.getValue().stream().flatMap(move -> Arrays.stream(move.split("-?>|\\?")))
                    .filter(status -> !status.isEmpty()).collect(Collectors.toCollection(TreeSet::new));
            assertTrue(named.containsAll(targets), writer.getKey() + " sets " + named + ", not all of " + targets);
            assertTrue(ends.containsAll(named), writer.getKey() + " names " + named + ", beyond its moves " + ends);
        }
    }

    /** One statement inserts task rows, whatever makes them (DESIGN.md, "Task lifecycle"). */
    @Test
    void oneStatementInsertsTaskRows() throws IOException {
        List<String> inserts = taskWrites(main).values().stream().flatMap(List::stream)
                .filter(text -> TASK_INSERT.matcher(text).find()).toList();
        assertEquals(1, inserts.size(), () -> "statements that insert into tasks: " + inserts);
    }

    /** The triggers in force write side tables only; their functions live in the one repeatable migration. */
    @Test
    void noTriggerWritesTasks() throws IOException {
        String triggers = Files.readString(TRIGGERS);
        Matcher write = TASK_WRITE.matcher(triggers);
        assertTrue(!write.find(), () -> TRIGGERS + " writes tasks: " + write.group());
        assertTrue(triggers.contains("create or replace trigger"), "the scan reads the triggers' file");
    }

    @Test
    void noPackageHasMoreThanFifteenFilesAndNoMainClassMoreThan350Lines() throws IOException {
        Map<String, Long> crowded = new TreeMap<>();
        Map<String, Long> long_ = new TreeMap<>();
        List<Path> directories = new ArrayList<>();
        for (Path root : List.of(MAIN_SOURCES, CLIENT_SOURCES)) {
            try (Stream<Path> walked = Files.walk(root)) {
                walked.filter(Files::isDirectory).forEach(directories::add);
            }
        }
        assertTrue(directories.contains(CLIENT_SOURCES.resolve("client")), "the scan reads the Java client's sources");
        for (Path directory : directories) {
            List<Path> sources;
            try (Stream<Path> files = Files.list(directory)) {
                sources = files.filter(file -> file.toString().endsWith(".java")).toList();
            }
            if (sources.size() > MAX_FILES_A_PACKAGE) {
                crowded.put(directory.toString(), (long) sources.size());
            }
            for (Path source : sources) {
                long lines;
                try (Stream<String> text = Files.lines(source)) {
                    lines = text.count();
                }
                if (lines > MAX_LINES_A_CLASS) {
                    long_.put(source.toString(), lines);
                }
            }
        }
        assertEquals(Map.of(), crowded, "packages over " + MAX_FILES_A_PACKAGE + " files");
        assertEquals(Map.of(), long_, "main classes over " + MAX_LINES_A_CLASS + " lines");
    }

    /**
     * Each package-info's "May import" line names exactly the io.taskfence packages its classes import (relative
     * names, e.g. {@code task.transition}; the top level's configuration goes without saying; "nothing" for none).
     */
    @Test
    void everyMayImportLineIsTrue() throws IOException {
        Map<String, Set<String>> declared = new TreeMap<>();
        Map<String, Set<String>> imported = new TreeMap<>();
        for (JavaClass type : main) {
            String pkg = relative(type.getPackageName());
            if (type.getSimpleName().equals("package-info") || pkg.isEmpty()) {
                continue;
            }
            Set<String> targets = imported.computeIfAbsent(pkg, any -> new TreeSet<>());
            for (Dependency dependency : type.getDirectDependenciesFromSelf()) {
                String target = dependency.getTargetClass().getPackageName();
                if (target.startsWith("io.taskfence.") && !target.equals(type.getPackageName())) {
                    targets.add(relative(target));
                }
            }
        }
        for (String pkg : imported.keySet()) {
            Path info = MAIN_SOURCES.resolve(pkg.replace('.', '/')).resolve("package-info.java");
            declared.put(pkg, mayImport(Files.exists(info) ? Files.readString(info) : ""));
        }
        assertEquals(imported, declared, "each package's imports (right: its package-info's \"May import\" line)");
    }

    /** The packages a package-info's "May import" line names; null when it has none. */
    static Set<String> mayImport(String packageInfo) {
        Matcher line = Pattern.compile("(?s)May import:?\\s+(.*?)\\.(\\s|$)").matcher(packageInfo.replaceAll("\\s*\\*\\s+", " "));
        if (!line.find()) {
            return null;
        }
        String names = line.group(1).replaceAll("\\([^)]*\\)", " ").trim();
        if (names.equals("nothing")) {
            return Set.of();
        }
        return Arrays.stream(names.split(",|\\band\\b")).map(String::trim).filter(name -> !name.isEmpty())
                .collect(Collectors.toCollection(TreeSet::new));
    }

    private static String relative(String pkg) {
        return pkg.equals("io.taskfence") ? "" : pkg.substring("io.taskfence.".length());
    }

    /** Each main class's text constants that write task rows, by the class's name relative to io.taskfence. */
    static Map<String, List<String>> taskWrites(JavaClasses classes) throws IOException {
        Map<String, List<String>> writes = new TreeMap<>();
        for (JavaClass type : classes) {
            String outer = type.getName().replaceAll("\\$.*", "");
            for (String text : constantsOf(type)) {
                if (TASK_WRITE.matcher(text).find()) {
                    writes.computeIfAbsent(outer.substring("io.taskfence.".length()), any -> new ArrayList<>()).add(text);
                }
            }
        }
        return writes;
    }

    private static Stream<String> statuses(String statement) {
        return STATUS.matcher(statement).results().map(result -> result.group(1));
    }

    private static Iterable<String> constantsOf(JavaClass type) throws IOException {
        try (InputStream in = type.getSource().orElseThrow().getUri().toURL().openStream()) {
            return ClassConstants.of(in.readAllBytes());
        }
    }
}
