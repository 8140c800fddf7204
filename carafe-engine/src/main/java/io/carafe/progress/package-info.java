/**
 * The progress of long tasks: plain lines wherever output goes, bars on a terminal when
 * the application provides them ({@link io.carafe.progress.Progress.Bars}).
 */
package io.carafe.progress;
