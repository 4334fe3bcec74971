"""
Percentiles, latency summaries and ratios: the arithmetic of the report,
kept apart from anything that measures so it can be tested on its own.
"""

import statistics

PERCENTILES = (50, 90, 99)


def percentile(samples, p):
    """
    The C{p}th percentile of C{samples}, interpolating between the two
    nearest ranks (as numpy's default does), so a short sample is not
    rounded to its maximum.
    """
    if not samples:
        raise ValueError("no samples")
    ordered = sorted(samples)
    rank = (len(ordered) - 1) * p / 100
    low = int(rank)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


def summarize(seconds):
    """
    A latency sample (in seconds) as milliseconds: count, mean, the
    L{PERCENTILES} and the maximum.
    """
    summary = {"count": len(seconds),
               "mean_ms": statistics.fmean(seconds) * 1e3}
    for p in PERCENTILES:
        summary[f"p{p}_ms"] = percentile(seconds, p) * 1e3
    summary["max_ms"] = max(seconds) * 1e3
    return summary


def fromWrk(raw):
    """
    What C{post.lua}'s C{done()} printed, as requests per second and
    millisecond percentiles.

    @raise ValueError: when any request failed or answered other than 2xx,
        since a fast error would pass for throughput.
    """
    if raw["errors"] or raw["non2xx"]:
        raise ValueError(f"{raw['errors']} socket errors and {raw['non2xx']} "
                         f"non-2xx answers in {raw['requests']} requests")
    latency = raw["latency_us"]
    return {"requests": raw["requests"],
            "rps": raw["requests"] / (raw["duration_us"] / 1e6),
            "mean_ms": latency["mean"] / 1e3,
            "p50_ms": latency["50"] / 1e3,
            "p90_ms": latency["90"] / 1e3,
            "p99_ms": latency["99"] / 1e3,
            "p99.9_ms": latency["99.9"] / 1e3,
            "max_ms": latency["max"] / 1e3}


def medianRound(rounds):
    """
    Several runs of one load as one: each figure is the median of the runs',
    so one disturbed run on a shared machine does not decide the result.
    """
    return {key: statistics.median(r[key] for r in rounds)
            for key in rounds[0]} | {"rounds": len(rounds)}


def ratio(numerator, denominator):
    """
    C{numerator / denominator}, or L{None} when there is nothing to divide
    by.
    """
    if numerator is None or not denominator:
        return None
    return numerator / denominator
