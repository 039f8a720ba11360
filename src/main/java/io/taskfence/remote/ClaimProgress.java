package io.taskfence.remote;

import jakarta.enterprise.context.ApplicationScoped;

import org.jboss.logging.Logger;

import com.fasterxml.jackson.databind.node.ObjectNode;

import io.taskfence.task.transition.ProgressReports;

/**
 * A remote worker's progress reports (DESIGN.md, "Remote workers"): taken while the claim holds its task, then written
 * as a local handler's are, the latest within a second.
 */
@ApplicationScoped
public class ClaimProgress {

    private static final Logger LOG = Logger.getLogger(ClaimProgress.class);

    private final ProgressReports reports;
    private final RemoteClaims claims;

    ClaimProgress(ProgressReports reports, RemoteClaims claims) {
        this.reports = reports;
        this.claims = claims;
    }

    /**
     * Keeps {@code progress} as the claim's latest report.
     *
     * @throws ClaimSupersededException if the claim no longer holds its task: nothing is kept
     * @throws IllegalArgumentException if its JSON is over {@value ProgressReports#MAX_BYTES} bytes
     */
    public void report(ClaimId claim, ObjectNode progress) {
        if (!reports.reportIfHeld(claim.claim(), progress)) {
            throw claims.superseded(claim);
        }
    }

    /**
     * Writes the claim's report held back here, if any: called before the claim's end, which it would otherwise miss.
     * A worker's calls go to one replica until it fails, so its last report and its end meet here.
     */
    public void flush(ClaimId claim) {
        try {
            reports.flush(claim.claim());
        } catch (RuntimeException e) {
            LOG.debugf("the last progress report of task %s was not written: %s", claim.taskId(), e.getMessage());
        }
    }
}
