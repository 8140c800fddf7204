/**
 * The daemons' configuration (conf/rstore.conf, environment, flags) and the sizes and
 * durations people write in it.
 */
package io.rstore.config;
