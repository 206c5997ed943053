/*
 * @copyright
 * Copyright (C) OpenCyphal Development Team  <opencyphal.org>
 * Copyright Amazon.com Inc. or its affiliates.
 * SPDX-License-Identifier: MIT
 */

#include "uavcan/_register/Name_1_0.hpp"

int main()
{
    return 0;
}
