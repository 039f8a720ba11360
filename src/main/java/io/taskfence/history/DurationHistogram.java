package io.taskfence.history;

import java.util.Arrays;

/**
 * Durations counted on a logarithmic scale of eight buckets per doubling: bucket 0 holds 0 ms, bucket i ≥ 1 the
 * durations from 2^((i-1)/8) ms up to 2^(i/8) ms. Two histograms add up exactly, so minutes fold into hours and steps
 * without keeping each duration; a percentile read from one is its bucket's upper end (at most 9 % above the
 * duration), never above the largest duration counted, which is kept exactly.
 */
final class DurationHistogram {

    private static final int PER_DOUBLING = 8;
    /** 2^(200/8) ms is about a year: any longer duration counts in the last bucket. */
    private static final int BUCKETS = 201;

    private int[] counts;
    private long maxMs;

    DurationHistogram() {
        this(new int[0], 0);
    }

    DurationHistogram(int[] counts, long maxMs) {
        this.counts = counts;
        this.maxMs = maxMs;
    }

    void add(long ms) {
        long duration = Math.max(0, ms);
        int bucket = duration == 0 ? 0
                : Math.min(BUCKETS - 1, (int) Math.floor(PER_DOUBLING * Math.log(duration) / Math.log(2)) + 1);
        grow(bucket + 1);
        counts[bucket]++;
        maxMs = Math.max(maxMs, duration);
    }

    void addAll(DurationHistogram other) {
        grow(other.counts.length);
        for (int i = 0; i < other.counts.length; i++) {
            counts[i] += other.counts[i];
        }
        maxMs = Math.max(maxMs, other.maxMs);
    }

    long total() {
        long total = 0;
        for (int count : counts) {
            total += count;
        }
        return total;
    }

    /** The duration {@code fraction} (0 to 1) of those counted took at most; 0 if none was counted. */
    long percentile(double fraction) {
        long total = total();
        long rank = Math.max(1, (long) Math.ceil(fraction * total));
        long seen = 0;
        for (int i = 0; i < counts.length; i++) {
            seen += counts[i];
            if (seen >= rank) {
                long upper = i == 0 ? 0 : (long) Math.ceil(Math.pow(2, (double) i / PER_DOUBLING));
                return Math.min(upper, maxMs);
            }
        }
        return maxMs;
    }

    long maxMs() {
        return maxMs;
    }

    Integer[] counts() {
        return Arrays.stream(counts).boxed().toArray(Integer[]::new);
    }

    private void grow(int length) {
        if (counts.length < length) {
            counts = Arrays.copyOf(counts, length);
        }
    }
}
