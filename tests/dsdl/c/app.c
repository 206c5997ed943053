/* A small node application written against nunavut's C API: it must build and print the same
 * with every producer's headers (tests/dsdl/test_dsdl_c.py). */
#include <uavcan/_register/Access_1_0.h>
#include <uavcan/node/GetInfo_1_0.h>
#include <uavcan/node/Heartbeat_1_0.h>
#include <uavcan/node/port/List_1_0.h>

#include <stdio.h>
#include <string.h>

static uint8_t buffer[uavcan_node_port_List_1_0_SERIALIZATION_BUFFER_SIZE_BYTES_];

static void show(const char* what, int8_t rc, const uint8_t* bytes, size_t size)
{
    printf("%s: rc=%d size=%zu bytes=", what, (int) rc, size);
    for (size_t i = 0; (rc >= 0) && (i < size); i++)
    {
        printf("%02x", bytes[i]);
    }
    printf("\n");
}

static void set_bit(uint8_t* bits, size_t index)
{
    bits[index / 8U] = (uint8_t) (bits[index / 8U] | (1U << (index % 8U)));
}

static int get_bit(const uint8_t* bits, size_t index)
{
    return (bits[index / 8U] >> (index % 8U)) & 1U;
}

static void heartbeat(void)
{
    uavcan_node_Heartbeat_1_0 hb;
    uavcan_node_Heartbeat_1_0_initialize_(&hb);
    hb.uptime = 123456U;
    hb.health.value = uavcan_node_Health_1_0_WARNING;
    hb.mode.value = uavcan_node_Mode_1_0_MAINTENANCE;
    hb.vendor_specific_status_code = 0xA5U;
    uint8_t out[uavcan_node_Heartbeat_1_0_SERIALIZATION_BUFFER_SIZE_BYTES_];
    size_t size = sizeof(out);
    int8_t rc = uavcan_node_Heartbeat_1_0_serialize_(&hb, out, &size);
    show("heartbeat", rc, out, size);

    uavcan_node_Heartbeat_1_0 back;
    size = uavcan_node_Heartbeat_1_0_SERIALIZATION_BUFFER_SIZE_BYTES_;
    rc = uavcan_node_Heartbeat_1_0_deserialize_(&back, out, &size);
    printf("heartbeat back: rc=%d size=%zu uptime=%lu health=%u mode=%u vssc=%u\n", (int) rc, size,
           (unsigned long) back.uptime, (unsigned) back.health.value, (unsigned) back.mode.value,
           (unsigned) back.vendor_specific_status_code);

    size = 3U; /* implicit zero extension */
    rc = uavcan_node_Heartbeat_1_0_deserialize_(&back, out, &size);
    printf("heartbeat short: rc=%d size=%zu uptime=%lu health=%u\n", (int) rc, size, (unsigned long) back.uptime,
           (unsigned) back.health.value);

    size = uavcan_node_Heartbeat_1_0_SERIALIZATION_BUFFER_SIZE_BYTES_ - 1U;
    rc = uavcan_node_Heartbeat_1_0_serialize_(&hb, out, &size);
    printf("heartbeat small buffer: %s\n", (rc == -NUNAVUT_ERROR_SERIALIZATION_BUFFER_TOO_SMALL) ? "too small" : "?");
    printf("heartbeat port=%u fixed=%d name=%s extent=%lu max=%lu period=%u\n",
           (unsigned) uavcan_node_Heartbeat_1_0_FIXED_PORT_ID_, (int) uavcan_node_Heartbeat_1_0_HAS_FIXED_PORT_ID_,
           uavcan_node_Heartbeat_1_0_FULL_NAME_AND_VERSION_, (unsigned long) uavcan_node_Heartbeat_1_0_EXTENT_BYTES_,
           (unsigned long) uavcan_node_Heartbeat_1_0_SERIALIZATION_BUFFER_SIZE_BYTES_,
           (unsigned) uavcan_node_Heartbeat_1_0_MAX_PUBLICATION_PERIOD);
}

static void register_access(void)
{
    uavcan_register_Access_Request_1_0 req;
    uavcan_register_Access_Request_1_0_initialize_(&req);
    const char* name = "motor.pwm.limits";
    req.name.name.count = strlen(name);
    memcpy(req.name.name.elements, name, req.name.name.count);
    uavcan_register_Value_1_0_select_natural16_(&req.value);
    req.value.natural16.value.count = 3U;
    req.value.natural16.value.elements[0] = 1000U;
    req.value.natural16.value.elements[1] = 1500U;
    req.value.natural16.value.elements[2] = 65535U;
    size_t size = uavcan_register_Access_Request_1_0_SERIALIZATION_BUFFER_SIZE_BYTES_;
    int8_t rc = uavcan_register_Access_Request_1_0_serialize_(&req, buffer, &size);
    show("access request", rc, buffer, size);

    uavcan_register_Access_Request_1_0 back;
    rc = uavcan_register_Access_Request_1_0_deserialize_(&back, buffer, &size);
    printf("access back: rc=%d name=%.*s natural16=%d empty=%d count=%zu last=%u\n", (int) rc,
           (int) back.name.name.count, (const char*) back.name.name.elements,
           (int) uavcan_register_Value_1_0_is_natural16_(&back.value),
           (int) uavcan_register_Value_1_0_is_empty_(&back.value), back.value.natural16.value.count,
           (unsigned) back.value.natural16.value.elements[2]);

    buffer[1U + req.name.name.count] = 200U; /* the union tag of the value: no such field */
    rc = uavcan_register_Access_Request_1_0_deserialize_(&back, buffer, &size);
    printf("access bad tag: %s\n", (rc == -NUNAVUT_ERROR_REPRESENTATION_BAD_UNION_TAG) ? "bad union tag" : "?");

    uavcan_register_Access_Response_1_0 resp;
    uavcan_register_Access_Response_1_0_initialize_(&resp);
    resp.timestamp.microsecond = 0x0102030405060708ULL;
    resp._mutable = true;
    resp.persistent = false;
    uavcan_register_Value_1_0_select_bit_(&resp.value);
    resp.value.bit.value.count = 11U;
    memset(resp.value.bit.value.bitpacked, 0, sizeof(resp.value.bit.value.bitpacked));
    set_bit(resp.value.bit.value.bitpacked, 0U);
    set_bit(resp.value.bit.value.bitpacked, 9U);
    set_bit(resp.value.bit.value.bitpacked, 10U);
    size = sizeof(buffer);
    rc = uavcan_register_Access_Response_1_0_serialize_(&resp, buffer, &size);
    show("access response", rc, buffer, size);
    uavcan_register_Access_Response_1_0 rback;
    rc = uavcan_register_Access_Response_1_0_deserialize_(&rback, buffer, &size);
    printf("access response back: rc=%d mutable=%d bit=%d count=%zu bits=%d%d%d\n", (int) rc, (int) rback._mutable,
           (int) uavcan_register_Value_1_0_is_bit_(&rback.value), rback.value.bit.value.count,
           get_bit(rback.value.bit.value.bitpacked, 0U), get_bit(rback.value.bit.value.bitpacked, 1U),
           get_bit(rback.value.bit.value.bitpacked, 10U));

    uavcan_register_Value_1_0 text;
    uavcan_register_Value_1_0_initialize_(&text);
    printf("value initialized empty=%d\n", (int) uavcan_register_Value_1_0_is_empty_(&text));
    uavcan_register_Value_1_0_select_string_(&text);
    text._string.value.count = 5U;
    memcpy(text._string.value.elements, "hello", 5U);
    size = uavcan_register_Value_1_0_SERIALIZATION_BUFFER_SIZE_BYTES_;
    rc = uavcan_register_Value_1_0_serialize_(&text, buffer, &size);
    show("value string", rc, buffer, size);
}

static void port_list(void)
{
    static uavcan_node_port_List_1_0 list;
    uavcan_node_port_List_1_0_initialize_(&list);
    uavcan_node_port_SubjectIDList_1_0_select_sparse_list_(&list.publishers);
    list.publishers.sparse_list.count = 3U;
    list.publishers.sparse_list.elements[0].value = 7509U;
    list.publishers.sparse_list.elements[1].value = 100U;
    list.publishers.sparse_list.elements[2].value = 8191U;
    uavcan_node_port_SubjectIDList_1_0_select_mask_(&list.subscribers);
    memset(list.subscribers.mask_bitpacked_, 0, sizeof(list.subscribers.mask_bitpacked_));
    set_bit(list.subscribers.mask_bitpacked_, 42U);
    set_bit(list.subscribers.mask_bitpacked_, 8191U);
    set_bit(list.servers.mask_bitpacked_, 430U);
    set_bit(list.servers.mask_bitpacked_, 384U);
    size_t size = sizeof(buffer);
    int8_t rc = uavcan_node_port_List_1_0_serialize_(&list, buffer, &size);
    printf("port list: rc=%d size=%zu head=%02x%02x%02x%02x%02x%02x extent=%lu\n", (int) rc, size, buffer[0],
           buffer[1], buffer[2], buffer[3], buffer[4], buffer[5],
           (unsigned long) uavcan_node_port_List_1_0_EXTENT_BYTES_);
    show("port list tail", rc, buffer + size - 16U, 16U);

    static uavcan_node_port_List_1_0 back;
    rc = uavcan_node_port_List_1_0_deserialize_(&back, buffer, &size);
    printf("port list back: rc=%d size=%zu sparse=%d count=%zu last=%u mask=%d bits=%d%d%d total=%d servers=%d%d\n",
           (int) rc, size, (int) uavcan_node_port_SubjectIDList_1_0_is_sparse_list_(&back.publishers),
           back.publishers.sparse_list.count, (unsigned) back.publishers.sparse_list.elements[2].value,
           (int) uavcan_node_port_SubjectIDList_1_0_is_mask_(&back.subscribers),
           get_bit(back.subscribers.mask_bitpacked_, 41U), get_bit(back.subscribers.mask_bitpacked_, 42U),
           get_bit(back.subscribers.mask_bitpacked_, 8191U),
           (int) uavcan_node_port_SubjectIDList_1_0_is_total_(&back.publishers),
           get_bit(back.servers.mask_bitpacked_, 430U), get_bit(back.clients.mask_bitpacked_, 430U));
}

static void get_info(void)
{
    uavcan_node_GetInfo_Request_1_0 req;
    uavcan_node_GetInfo_Request_1_0_initialize_(&req);
    uint8_t small[1];
    size_t size = uavcan_node_GetInfo_Request_1_0_SERIALIZATION_BUFFER_SIZE_BYTES_;
    int8_t rc = uavcan_node_GetInfo_Request_1_0_serialize_(&req, small, &size);
    printf("get info request: rc=%d size=%zu port=%u\n", (int) rc, size,
           (unsigned) uavcan_node_GetInfo_1_0_FIXED_PORT_ID_);

    uavcan_node_GetInfo_Response_1_0 resp;
    uavcan_node_GetInfo_Response_1_0_initialize_(&resp);
    resp.protocol_version.major = 1U;
    resp.hardware_version.major = 2U;
    resp.hardware_version.minor = 1U;
    resp.software_version.major = 3U;
    resp.software_vcs_revision_id = 0xDEADBEEFCAFEULL;
    for (size_t i = 0; i < uavcan_node_GetInfo_Response_1_0_unique_id_ARRAY_CAPACITY_; i++)
    {
        resp.unique_id[i] = (uint8_t) (i * 17U);
    }
    const char* name = "org.example.motor";
    resp.name.count = strlen(name);
    memcpy(resp.name.elements, name, resp.name.count);
    resp.software_image_crc.count = 1U;
    resp.software_image_crc.elements[0] = 0x1122334455667788ULL;
    resp.certificate_of_authenticity.count = 4U;
    memcpy(resp.certificate_of_authenticity.elements, "\x01\x02\x03\x04", 4U);
    size = uavcan_node_GetInfo_Response_1_0_SERIALIZATION_BUFFER_SIZE_BYTES_;
    rc = uavcan_node_GetInfo_Response_1_0_serialize_(&resp, buffer, &size);
    show("get info response", rc, buffer, size);

    uavcan_node_GetInfo_Response_1_0 back;
    rc = uavcan_node_GetInfo_Response_1_0_deserialize_(&back, buffer, &size);
    printf("get info back: rc=%d size=%zu name=%.*s crc=%d/%llx cert=%zu uid15=%u name cap=%u\n", (int) rc, size,
           (int) back.name.count, (const char*) back.name.elements, (int) back.software_image_crc.count,
           (unsigned long long) back.software_image_crc.elements[0], back.certificate_of_authenticity.count,
           (unsigned) back.unique_id[15], (unsigned) uavcan_node_GetInfo_Response_1_0_name_ARRAY_CAPACITY_);

    size = 40U; /* cut inside the name: the rest reads as zeros */
    rc = uavcan_node_GetInfo_Response_1_0_deserialize_(&back, buffer, &size);
    printf("get info truncated: rc=%d size=%zu name=%zu crc=%zu\n", (int) rc, size, back.name.count,
           back.software_image_crc.count);
}

int main(void)
{
    heartbeat();
    register_access();
    port_list();
    get_info();
    return 0;
}
