package io.taskfence.store;

/**
 * What a fenced write carries: the lock's name, the holder's token and the holder itself
 * ({@code <owner>:<token>} as the lock stores it). PostgreSQL accepts a token newer than any it has
 * seen, or the same token from the same holder; an older token, or the same number from another holder
 * (Redis lost its counter and handed it out twice), is refused.
 */
public record FenceToken(String lock, long token, String holder) {
}
