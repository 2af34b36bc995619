/// The `Decoder` a ``SchemaRecorder`` hands to a type's `init(from:)`: every container records into
/// a ``RecordedNode`` and answers with stand-in values.
///
/// Keyed containers claim every key is present and not `null`, so the decoding walks each key once;
/// `contains` (which `decodeIfPresent` asks first) marks the key optional and `decodeNil` marks it
/// nullable. Unkeyed containers hold exactly one element, so an array's element type is walked once.
struct SchemaRecordingDecoder: Decoder {
    let recorder: SchemaRecorder
    let node: RecordedNode
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    init(recorder: SchemaRecorder, node: RecordedNode, codingPath: [any CodingKey]) {
        self.recorder = recorder
        self.node = node
        self.codingPath = codingPath
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        let object = try node.object(at: codingPath)
        return KeyedDecodingContainer(KeyedContainer(recorder: recorder, object: object, codingPath: codingPath))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        UnkeyedContainer(recorder: recorder, element: try node.element(at: codingPath), codingPath: codingPath)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        SingleValueContainer(recorder: recorder, node: node, codingPath: codingPath)
    }
}

extension SchemaRecordingDecoder {
    struct KeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let recorder: SchemaRecorder
        let object: RecordedObject
        let codingPath: [any CodingKey]
        var allKeys: [Key] { [] }  // no keys to list: a dictionary records as an open object

        func contains(_ key: Key) -> Bool {
            _ = object.node(for: key.stringValue, isPresenceCheck: true)
            return true
        }

        func decodeNil(forKey key: Key) throws -> Bool {
            object.node(for: key.stringValue).isNullable = true
            return false
        }

        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try record(type, forKey: key) }

        func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try record(type, forKey: key) }
        func decode(_ type: String.Type, forKey key: Key) throws -> String { try record(type, forKey: key) }
        func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try record(type, forKey: key) }
        func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try record(type, forKey: key) }
        func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try record(type, forKey: key) }
        func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try record(type, forKey: key) }
        func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try record(type, forKey: key) }
        func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try record(type, forKey: key) }
        func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try record(type, forKey: key) }
        func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try record(type, forKey: key) }
        func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try record(type, forKey: key) }
        func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try record(type, forKey: key) }
        func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try record(type, forKey: key) }
        func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try record(type, forKey: key) }

        /// Every overload's work: the recorder looks the type up.
        private func record<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
            try recorder.value(of: type, into: object.node(for: key.stringValue), codingPath: codingPath + [key])
        }

        func nestedContainer<NestedKey: CodingKey>(
            keyedBy type: NestedKey.Type, forKey key: Key
        ) throws -> KeyedDecodingContainer<NestedKey> {
            try superDecoder(forKey: key).container(keyedBy: type)
        }

        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
            try superDecoder(forKey: key).unkeyedContainer()
        }

        func superDecoder() throws -> any Decoder {
            try superDecoder(forKey: Key(stringValue: "super") ?? unsupportedKey())
        }

        func superDecoder(forKey key: Key) throws -> any Decoder {
            SchemaRecordingDecoder(
                recorder: recorder, node: object.node(for: key.stringValue), codingPath: codingPath + [key])
        }

        private func unsupportedKey() throws -> Key {
            throw SchemaRecorder.Failure("superDecoder() with keys that cannot spell 'super'", at: codingPath)
        }
    }
}

extension SchemaRecordingDecoder {
    struct UnkeyedContainer: UnkeyedDecodingContainer {
        let recorder: SchemaRecorder
        let element: RecordedNode
        let codingPath: [any CodingKey]
        private(set) var currentIndex = 0
        var count: Int? { 1 }
        var isAtEnd: Bool { currentIndex > 0 }

        init(recorder: SchemaRecorder, element: RecordedNode, codingPath: [any CodingKey]) {
            self.recorder = recorder
            self.element = element
            self.codingPath = codingPath
        }

        mutating func decodeNil() throws -> Bool {
            element.isNullable = true
            return false
        }

        mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try record(type) }

        mutating func decode(_ type: Bool.Type) throws -> Bool { try record(type) }
        mutating func decode(_ type: String.Type) throws -> String { try record(type) }
        mutating func decode(_ type: Double.Type) throws -> Double { try record(type) }
        mutating func decode(_ type: Float.Type) throws -> Float { try record(type) }
        mutating func decode(_ type: Int.Type) throws -> Int { try record(type) }
        mutating func decode(_ type: Int8.Type) throws -> Int8 { try record(type) }
        mutating func decode(_ type: Int16.Type) throws -> Int16 { try record(type) }
        mutating func decode(_ type: Int32.Type) throws -> Int32 { try record(type) }
        mutating func decode(_ type: Int64.Type) throws -> Int64 { try record(type) }
        mutating func decode(_ type: UInt.Type) throws -> UInt { try record(type) }
        mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try record(type) }
        mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try record(type) }
        mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try record(type) }
        mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try record(type) }

        /// Every overload's work: the recorder looks the type up.
        private mutating func record<T: Decodable>(_ type: T.Type) throws -> T {
            let path = try nextPath()
            return try recorder.value(of: type, into: element, codingPath: path)
        }

        mutating func nestedContainer<NestedKey: CodingKey>(
            keyedBy type: NestedKey.Type
        ) throws -> KeyedDecodingContainer<NestedKey> {
            try superDecoder().container(keyedBy: type)
        }

        mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
            try superDecoder().unkeyedContainer()
        }

        mutating func superDecoder() throws -> any Decoder {
            SchemaRecordingDecoder(recorder: recorder, node: element, codingPath: try nextPath())
        }

        /// The path of the one element; a second element is a fixed-length array, which is not modelled.
        private mutating func nextPath() throws(SchemaRecorder.Failure) -> [any CodingKey] {
            guard currentIndex == 0 else {
                throw SchemaRecorder.Failure("decodes more than one element without asking isAtEnd", at: codingPath)
            }
            currentIndex += 1
            return codingPath + [IndexKey(intValue: 0)]
        }
    }

    /// An array index in a coding path.
    struct IndexKey: CodingKey {
        var intValue: Int?
        var stringValue: String { intValue.map { "\($0)" } ?? "" }
        init(intValue: Int) { self.intValue = intValue }
        init?(stringValue: String) { nil }
    }
}

extension SchemaRecordingDecoder {
    struct SingleValueContainer: SingleValueDecodingContainer {
        let recorder: SchemaRecorder
        let node: RecordedNode
        let codingPath: [any CodingKey]

        func decodeNil() -> Bool {
            node.isNullable = true
            return false
        }

        func decode<T: Decodable>(_ type: T.Type) throws -> T { try record(type) }

        func decode(_ type: Bool.Type) throws -> Bool { try record(type) }
        func decode(_ type: String.Type) throws -> String { try record(type) }
        func decode(_ type: Double.Type) throws -> Double { try record(type) }
        func decode(_ type: Float.Type) throws -> Float { try record(type) }
        func decode(_ type: Int.Type) throws -> Int { try record(type) }
        func decode(_ type: Int8.Type) throws -> Int8 { try record(type) }
        func decode(_ type: Int16.Type) throws -> Int16 { try record(type) }
        func decode(_ type: Int32.Type) throws -> Int32 { try record(type) }
        func decode(_ type: Int64.Type) throws -> Int64 { try record(type) }
        func decode(_ type: UInt.Type) throws -> UInt { try record(type) }
        func decode(_ type: UInt8.Type) throws -> UInt8 { try record(type) }
        func decode(_ type: UInt16.Type) throws -> UInt16 { try record(type) }
        func decode(_ type: UInt32.Type) throws -> UInt32 { try record(type) }
        func decode(_ type: UInt64.Type) throws -> UInt64 { try record(type) }

        /// Every overload's work: the recorder looks the type up.
        private func record<T: Decodable>(_ type: T.Type) throws -> T {
            try recorder.value(of: type, into: node, codingPath: codingPath)
        }
    }
}
