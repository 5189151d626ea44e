for (int k = 0; k < 4; k++) {
    switch (k) {
    default: printf("many\n"); break;
    }
}