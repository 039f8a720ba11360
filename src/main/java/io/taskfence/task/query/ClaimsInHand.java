package io.taskfence.task.query;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.HashMap;
import java.util.Map;

import jakarta.enterprise.context.ApplicationScoped;

import io.taskfence.store.ReadDatabase;

/**
 * How many tasks each remote worker holds now (PROCESSING under a claim it made), read from the in-flight tasks only:
 * its cost follows what runs now, not the table.
 */
@ApplicationScoped
public class ClaimsInHand {

    /** A remote claim's worker id is {@code remote:<key>:<name>/<uuid>}: the worker is what comes before the slash. */
    private static final String BY_WORKER = "select split_part(t.worker, '/', 1), count(*) from tasks_in_flight f "
            + "join tasks t on t.id = f.task_id where t.status = 'PROCESSING' and t.worker like 'remote:%' "
            + "group by 1";

    private final ReadDatabase reads;

    ClaimsInHand(ReadDatabase reads) {
        this.reads = reads;
    }

    /** Tasks held, by claimer ({@code remote:<key>:<name>}); a worker holding none is not in it. */
    public Map<String, Long> byClaimer() {
        return reads.read(connection -> {
            Map<String, Long> held = new HashMap<>();
            try (PreparedStatement select = connection.prepareStatement(BY_WORKER); ResultSet row = select.executeQuery()) {
                while (row.next()) {
                    held.put(row.getString(1), row.getLong(2));
                }
            }
            return held;
        });
    }
}
