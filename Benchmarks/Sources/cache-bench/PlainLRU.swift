import Foundation

/// The least-recently-used cache an app might write itself: an `NSLock`, a dictionary of nodes and
/// a doubly linked list from most to least recently used. A get moves its node to the front; a set
/// over the limit drops the back. The peer the memory hit is compared with.
final class PlainLRU<Key: Hashable, Value>: @unchecked Sendable {
    // @unchecked: the nodes, the dictionary and the list ends are only touched under `lock`.
    private final class Node {
        let key: Key
        var value: Value
        var previous: Node?
        var next: Node?

        init(key: Key, value: Value) {
            self.key = key
            self.value = value
        }
    }

    private let lock = NSLock()
    private let limit: Int
    private var nodes: [Key: Node] = [:]
    private var head: Node?
    private var tail: Node?

    init(limit: Int) {
        self.limit = max(limit, 1)
    }

    deinit {
        // The list links both ways: break the cycles.
        var node = head
        while let current = node {
            node = current.next
            current.previous = nil
            current.next = nil
        }
    }

    func value(for key: Key) -> Value? {
        lock.lock()
        defer { lock.unlock() }
        guard let node = nodes[key] else { return nil }
        moveToFront(node)
        return node.value
    }

    func setValue(_ value: Value, for key: Key) {
        lock.lock()
        defer { lock.unlock() }
        if let node = nodes[key] {
            node.value = value
            moveToFront(node)
            return
        }
        let node = Node(key: key, value: value)
        nodes[key] = node
        moveToFront(node)
        if nodes.count > limit, let last = tail {
            unlink(last)
            nodes[last.key] = nil
        }
    }

    private func moveToFront(_ node: Node) {
        guard head !== node else { return }
        unlink(node)
        node.next = head
        head?.previous = node
        head = node
        if tail == nil { tail = node }
    }

    private func unlink(_ node: Node) {
        node.previous?.next = node.next
        node.next?.previous = node.previous
        if head === node { head = node.next }
        if tail === node { tail = node.previous }
        node.previous = nil
        node.next = nil
    }
}
