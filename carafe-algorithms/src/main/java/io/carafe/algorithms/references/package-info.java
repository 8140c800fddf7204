/**
 * The one home of the independent reference implementations ({@link
 * io.carafe.algorithms.references.References}) that {@code --verify} and the tests check
 * every algorithm against: textbook loops over a graph file in local memory, sharing no
 * code with what they check.
 */
package io.carafe.algorithms.references;
