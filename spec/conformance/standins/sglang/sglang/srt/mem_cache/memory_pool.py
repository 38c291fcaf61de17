"""The device KV pool of the stand-in: pages x layers of bytes, and the layer wait.

Facts reproduced (mem_cache/memory_pool.py, read, not copied): a KV pool keeps
`layer_transfer_counter`, set by register_layer_transfer_counter(counter), and before a layer's
buffers are read the forward calls counter.wait_until(layer) (_wait_for_layer), so a layer
restored asynchronously is read only once it has landed. The Unified tree registers its linker's
`layer_done_counter` there when it is built, which is after the worker captured its graphs.
"""


class MHATokenToKVPool:
    def __init__(self, pages, page_size, layer_num, page_bytes):
        self.pages, self.page_size, self.layer_num, self.page_bytes = pages, page_size, layer_num, page_bytes
        self._layers = [bytearray(pages * page_bytes) for _ in range(layer_num)]
        self.layer_transfer_counter = None

    def register_layer_transfer_counter(self, layer_transfer_counter):
        self.layer_transfer_counter = layer_transfer_counter

    def page(self, layer, index):
        start = index * self.page_bytes
        return memoryview(self._layers[layer])[start:start + self.page_bytes]

    def write_page(self, layer, index, data):
        start = index * self.page_bytes
        self._layers[layer][start:start + self.page_bytes] = data

    def clear_page(self, index):
        for layer in range(self.layer_num):
            self.write_page(layer, index, bytes(self.page_bytes))


class TokenToKVPoolAllocator:
    """Free device pages; get_kvcache() is the pool (fact: allocator.get_kvcache())."""

    def __init__(self, kvcache):
        self._kvcache = kvcache
        self.free_pages = list(range(kvcache.pages))
        self.events = []

    def get_kvcache(self):
        return self._kvcache

    def alloc(self, count):
        if count > len(self.free_pages):
            return None
        taken, self.free_pages = self.free_pages[:count], self.free_pages[count:]
        return taken

    def free(self, pages, reason=""):
        for p in pages:
            if p in self.free_pages:
                raise AssertionError("page " + str(p) + " freed twice")
            self.free_pages.append(p)
        self.events.append(("free", list(pages), reason))
