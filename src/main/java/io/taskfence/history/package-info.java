/**
 * The history of work (DESIGN.md, "History of work"): what each type and owner started, ended and failed per minute
 * (per hour after a day), with wait and run times. HistoryFolding folds finished work into {@code work_history} for
 * the leader-only history job, HistoryHours folds minutes into hours and deletes old rows, HistoryReads reads a series
 * in steps; DurationHistogram keeps durations so that they add up.
 *
 * <p>May import store.
 */
package io.taskfence.history;
