package io.taskfence.schedule;

import java.time.Clock;

import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

/**
 * The clock schedules are read by: when an occurrence is due, and the next fire times the API shows. The
 * replica's own (replicas are assumed NTP-synchronised, as their lock leases already assume); a task made
 * for an occurrence runs at its occurrence by PostgreSQL's clock either way.
 */
final class WallClock {

    @Produces
    @Singleton
    Clock clock() {
        return Clock.systemUTC();
    }
}
