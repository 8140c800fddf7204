package io.rstore.transport.rdma;

import io.rstore.memory.LocalMemory;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A client's local memory (its arenas, and memory handed to mappings) registered on every
 * RDMA device the client uses, as a NIC requires of the memory its work requests touch:
 * once per region and device, when the memory is made or the device is first used, and
 * deregistered before the memory is freed. The key a mapping carries is a small index;
 * a device's lkey for it is one array read ({@link Device#lkey}), so the data path looks
 * nothing up.
 */
final class LocalRegions implements LocalMemory.Registrar {

    /** One device's registrations of the client's local memory. */
    static final class Device {
        private final RdmaDevice device;
        private MemoryRegion[] regions = new MemoryRegion[16];
        private volatile int[] lkeys = new int[16];

        private Device(RdmaDevice device) {
            this.device = device;
        }

        /** The lkey of the memory registered under {@code key} (0, which no device hands out, when there is none). */
        int lkey(int key) {
            int[] table = lkeys;
            return key >= 0 && key < table.length ? table[key] : 0;
        }

        private void register(int key, MemorySegment memory) {
            if (key >= regions.length) {
                regions = Arrays.copyOf(regions, Math.max(2 * regions.length, key + 1));
            }
            MemoryRegion region = device.register(memory);
            regions[key] = region;
            int[] table = Arrays.copyOf(lkeys, regions.length);
            table[key] = region.lkey();
            lkeys = table;
        }

        private void deregister(int key) {
            if (key < regions.length && regions[key] != null) {
                int[] table = lkeys.clone();
                table[key] = 0;
                lkeys = table;
                device.deregister(regions[key]);
                regions[key] = null;
            }
        }
    }

    private final List<MemorySegment> memory = new ArrayList<>(); // by key; null: a free key
    private final List<Device> devices = new ArrayList<>();

    @Override
    public synchronized int register(MemorySegment segment) {
        int key = memory.indexOf(null);
        if (key < 0) {
            key = memory.size();
            memory.add(segment);
        } else {
            memory.set(key, segment);
        }
        try {
            for (Device device : devices) {
                device.register(key, segment);
            }
        } catch (RuntimeException e) {
            deregister(key);
            throw e;
        }
        return key;
    }

    @Override
    public synchronized void deregister(int key) {
        if (key < 0 || key >= memory.size() || memory.get(key) == null) {
            return;
        }
        for (Device device : devices) {
            device.deregister(key);
        }
        memory.set(key, null);
    }

    /**
     * {@code device}'s registrations, registering all local memory on it the first time
     * (after its first connection: DiSNI gives the protection domain with an endpoint).
     */
    synchronized Device on(RdmaDevice device) {
        for (Device known : devices) {
            if (known.device == device) {
                return known;
            }
        }
        Device added = new Device(device);
        for (int key = 0; key < memory.size(); key++) {
            if (memory.get(key) != null) {
                added.register(key, memory.get(key));
            }
        }
        devices.add(added);
        return added;
    }

    /** Before the devices close: nothing is registered any more. */
    synchronized void clear() {
        for (Device device : devices) {
            for (int key = 0; key < device.regions.length; key++) {
                try {
                    device.deregister(key);
                } catch (RuntimeException e) {
                    // the device goes anyway
                }
            }
        }
        devices.clear();
    }
}
