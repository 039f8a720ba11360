package io.taskfence.architecture;

import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Pattern;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;

/**
 * The structure the packages' package-info files describe, held against the compiled main classes: no package
 * cycle, no dependency from a lower layer to a higher one, and only the task packages write a task's status.
 */
class ArchitectureTest {

    /** A statement that creates tasks or sets their status. */
    private static final Pattern STATUS_WRITE = Pattern.compile(
            "(?is)\\binsert\\s+into\\s+tasks\\b|\\bupdate\\s+tasks\\s+set\\b.*\\bstatus\\s*=");

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
                .layer("tasks").definedBy("io.taskfence.task")
                .layer("parts").definedBy("io.taskfence.types..", "io.taskfence.handlers..", "io.taskfence.queue..",
                        "io.taskfence.signals..", "io.taskfence.tracing..")
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

    @Test
    void onlyTheTaskPackagesWriteATasksStatus() throws IOException {
        Map<String, Set<String>> writers = new TreeMap<>();
        for (JavaClass type : main) {
            for (String text : constantsOf(type)) {
                if (STATUS_WRITE.matcher(text).find()) {
                    writers.computeIfAbsent(type.getPackageName(), any -> new TreeSet<>()).add(type.getSimpleName());
                }
            }
        }
        // The scan must see the writers there are, or it proves nothing about the others.
        assertTrue(writers.getOrDefault("io.taskfence.task.transition", Set.of()).containsAll(
                Set.of("AttemptTransitions", "DispatchBatch", "LeaseRecovery", "OperatorControls")), writers::toString);
        assertTrue(writers.getOrDefault("io.taskfence.task.submit", Set.of()).contains("Submissions"), writers::toString);
        writers.keySet().removeIf(name -> name.equals("io.taskfence.task") || name.startsWith("io.taskfence.task."));
        assertEquals(Map.of(), writers, "classes outside io.taskfence.task.. that create tasks or set their status");
    }

    private static Iterable<String> constantsOf(JavaClass type) throws IOException {
        try (InputStream in = type.getSource().orElseThrow().getUri().toURL().openStream()) {
            return ClassConstants.of(in.readAllBytes());
        }
    }
}
