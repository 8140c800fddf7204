/**
 * Named datasets: the catalog, finding or downloading their files, and deterministic
 * R-MAT and uniform generators for offline runs.
 */
package io.carafe.datasets;
