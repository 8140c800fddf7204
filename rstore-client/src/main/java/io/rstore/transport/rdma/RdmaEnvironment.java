package io.rstore.transport.rdma;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/** What this host offers RDMA, for {@code rstore doctor} and for choosing a transport. */
public final class RdmaEnvironment {
    private RdmaEnvironment() {
    }

    /** RDMA devices, each with its ports' state and link layer, e.g. {@code mlx5_0 (port 1: 4: ACTIVE, Ethernet)}. */
    public static List<String> devices() {
        return DisniDevice.devices().stream().map(RdmaEnvironment::describe).toList();
    }

    private static String describe(String device) {
        Path ports = Path.of("/sys/class/infiniband", device, "ports");
        try (Stream<Path> each = Files.list(ports)) {
            return device + " (" + String.join("; ", each.sorted().map(port -> "port " + port.getFileName() + ": "
                    + read(port.resolve("state")) + ", " + read(port.resolve("link_layer"))).toList()) + ")";
        } catch (IOException e) {
            return device;
        }
    }

    private static String read(Path file) {
        try {
            return Files.readString(file).trim();
        } catch (IOException e) {
            return "?";
        }
    }

    /** libdisni on java.library.path, or null. */
    public static Path library() {
        return DisniDevice.library();
    }

    /** libdisni's version, or -1 if it is missing or does not load. */
    public static int libraryVersion() {
        return DisniDevice.version();
    }

    /**
     * The device a memory server puts its chunks on: {@code disni} (a real card; UNSUPPORTED
     * with the reason if there is none), {@code emulated} (the software device), or
     * {@code auto}: disni when it can be used, else none (null). The emulated device's
     * listeners require {@code secret} (empty: none) of every connection.
     */
    public static RdmaDevice open(String kind, String secret) {
        return switch (kind) {
            case "disni" -> DisniDevice.open(RdmaDevice.Connections.DEFAULT);
            case "emulated" -> new EmulatedDevice(secret);
            case "auto" -> unavailable() == null ? DisniDevice.open(RdmaDevice.Connections.DEFAULT) : null;
            case "none" -> null;
            default -> throw new IllegalArgumentException("no RDMA device kind '" + kind + "'; use auto, disni, emulated or none");
        };
    }

    /**
     * Opens the device through DiSNI and moves bytes over a loopback queue pair: "opened
     * DEVICE: ..." when it all worked, else what failed and why (bounded, a few seconds).
     */
    public static String probe() {
        return DeviceProbe.probe();
    }

    /** The IPv4 address of the first RDMA device's network interface (its listeners' address), or null. */
    public static InetAddress deviceAddress() {
        List<String> devices = DisniDevice.devices();
        return devices.isEmpty() ? null : DeviceProbe.address(devices.getFirst());
    }

    /** Why the rdma transport cannot use a real device here, or null if it can. */
    public static String unavailable() {
        return DisniDevice.unavailable();
    }
}
