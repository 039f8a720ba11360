package io.taskfence.worker;

import java.util.concurrent.Semaphore;

/** A slot per task in hand, from its read to the end of its attempt. */
final class Slots extends Semaphore {

    Slots(int permits) {
        super(permits);
    }

    /**
     * After a read that took {@code taken} free slots: gives back those no claim used, or, if the messages
     * carried more tasks than were free and all were claimed, takes the excess too. The count of free
     * slots then goes below zero, so the next read waits until enough of those tasks have ended.
     */
    void settle(int taken, int claimed) {
        if (claimed <= taken) {
            release(taken - claimed);
        } else {
            reducePermits(claimed - taken);
        }
    }
}
