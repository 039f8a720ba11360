package io.taskfence.handlers.builtin;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.util.Optional;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Which addresses the {@code http} handler takes for not public. */
class NonPublicAddressTest {

    @ParameterizedTest
    @CsvSource({
            "0.0.0.0, UNSPECIFIED", "0.1.2.3, UNSPECIFIED", "::, UNSPECIFIED",
            "127.0.0.1, LOOPBACK", "127.255.0.9, LOOPBACK", "::1, LOOPBACK",
            "169.254.169.254, LINK_LOCAL", "fe80::1, LINK_LOCAL", "febf::1, LINK_LOCAL",
            "10.1.2.3, PRIVATE", "172.16.0.1, PRIVATE", "172.31.255.255, PRIVATE", "192.168.1.1, PRIVATE",
            "fc00::1, PRIVATE", "fd00:ec2::254, PRIVATE", "fec0::1, PRIVATE",
            "100.64.0.1, SHARED", "100.100.100.200, SHARED", "100.127.255.255, SHARED",
            "224.0.0.1, MULTICAST", "239.1.1.1, MULTICAST", "ff02::1, MULTICAST",
            "240.0.0.1, RESERVED", "255.255.255.255, RESERVED", "192.0.0.170, RESERVED", "198.18.0.1, RESERVED",
            "198.19.255.255, RESERVED",
            "64:ff9b::a9fe:a9fe, LINK_LOCAL", "::7f00:1, LOOPBACK",
            "64:ff9b:1::a9fe:a9fe, TRANSLATED", "64:ff9b:1:ffff::1, TRANSLATED", "2001::1, TRANSLATED",
            "2001:0:4136:e378:8000:63bf:3fff:fdd2, TRANSLATED",
            "2002:7f00:1::1, LOOPBACK", "2002:a9fe:a9fe::1, LINK_LOCAL", "2002:c0a8:101::1, PRIVATE" })
    void addressesThatReachThisHostOrItsNetworkAreNotPublic(String address, NonPublicAddress kind) throws Exception {
        assertEquals(Optional.of(kind), NonPublicAddress.of(InetAddress.getByName(address)));
    }

    @ParameterizedTest
    @ValueSource(strings = { "8.8.8.8", "1.1.1.1", "172.15.255.255", "172.32.0.1", "100.63.255.255", "100.128.0.1",
            "192.0.2.1", "169.253.1.1", "2001:4860:4860::8888", "2606:4700::1111", "64:ff9b::808:808", "192.0.1.1",
            "198.17.255.255", "198.20.0.1", "2002:808:808::1", "2001:1::1", "64:ff9b:2::1" })
    void othersArePublic(String address) throws Exception {
        assertEquals(Optional.empty(), NonPublicAddress.of(InetAddress.getByName(address)));
    }

    @Test
    void anIpv4MappedAddressCountsAsTheAddressItCarries() throws Exception {
        byte[] mapped = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, (byte) 0xff, (byte) 0xff, 127, 0, 0, 1 };
        assertEquals(Optional.of(NonPublicAddress.LOOPBACK), NonPublicAddress.of(Inet6Address.getByAddress(null, mapped, -1)));
        mapped[12] = 8;
        mapped[13] = 8;
        mapped[14] = 8;
        mapped[15] = 8;
        assertEquals(Optional.empty(), NonPublicAddress.of(Inet6Address.getByAddress(null, mapped, -1)));
    }
}
