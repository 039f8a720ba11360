package io.taskfence.api.tasks;

import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;

import org.eclipse.microprofile.openapi.annotations.media.Schema;

/** A submission's {@code callback}: where Taskfence POSTs the task's final view each time it ends. */
@Schema(name = "Callback", description = "where Taskfence POSTs the task's view each time it ends, signed as Standard "
        + "Webhooks signs (webhook-id: the callback task's id; webhook-timestamp; webhook-signature: v1, and the base64 "
        + "HMAC-SHA256 of id.timestamp.body) with the key's callback-secret, or one derived from the key (docs/task-types.md, "
        + "\"Signed callbacks\"); refuse a timestamp more than 5 minutes away. A result over 64 KiB is left out of the view "
        + "(resultTruncated, resultPath), a lastError cut to 16,384 characters (lastErrorTruncated)")
public record CallbackRequest(
        @NotNull
        @Schema(description = "an http or https URL on the service's (and the key's) allowed hosts, as an http "
                + "task's url", examples = "https://hooks.example.com/taskfence")
        String url,

        @Min(1) @Max(100)
        @Schema(description = "attempts of the callback task before it is DEAD; taskfence.retry.max-attempts when absent")
        Integer maxAttempts) {
}
