package io.taskfence.api.tasks;

import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;

import org.eclipse.microprofile.openapi.annotations.media.Schema;

/** A submission's {@code callback}: where Taskfence POSTs the task's final view each time it ends. */
@Schema(name = "Callback")
public record CallbackRequest(
        @NotNull
        @Schema(description = "an http or https URL on the service's (and the key's) allowed hosts, as an http "
                + "task's url", examples = "https://hooks.example.com/taskfence")
        String url,

        @Min(1) @Max(100)
        @Schema(description = "attempts of the callback task before it is DEAD; taskfence.retry.max-attempts when absent")
        Integer maxAttempts) {
}
