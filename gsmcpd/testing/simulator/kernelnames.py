"""
The class names of the kernel-sized repository
(L{gsmcpd.testing.simulator.kernelrepo}): public GemStone 3.x kernel class
names, each under its superclass, as a compact table.

The names are the ones MagLev (GemStone 3.x with Ruby) lists in
C{Module class>>_wrappedSmalltalkClasses} (MagLev/maglev,
C{src/smalltalk/ruby/mcz/Module.gs}), less the Ruby-only ones, with a few
later 3.x classes (Unicode7/32, Small* immediates, Icu*, GsHostProcess,
GsTsExternalSession, GsIndexSpec).  Names are facts; the superclasses are
GemStone's as best known from public sources, with a family's root where
unsure (C{docs/gemstone-fidelity.rst} says so).  The classes the simulator's
kernel model has (L{gsmcpd.testing.simulator.kernel.CLASSES}) are not
listed; should the model grow one that is, the model's wins.
"""

TABLE = """
Object: AbstractCharacter AbstractCollisionBucket AbstractSession AbstractUserProfileSet
    Association AutoComplete BasicSortNode BitSet BlockSorter BtreeNode
    BtreeComparisonForCompare BtreeQuerySpec CFunction CLibrary CPointer ClampSpecification
    ClientForwarder ClusterBucket ConstrainedPathEvaluator PathEvaluator CriticalSection
    CZstream EqualityIndexQueryEvaluator IndexedQueryEvaluator ErrorDescription StringPair
    GciInterface GemStoneParameters GsClassDocumentation GsDocText GsCloneList GsCompilerIRNode
    GsCommitList GsExceptionHandler GsFile GsFileStat GsfClassDefinitionInfo GsfModificationLog
    GsInterSessionSignal GsNativeCode GsPackage GsPackageLibrary GsPackagePolicy GsProcess
    GsSocket GsObjectSecurityPolicy IdentityIndex IndexDictionaryEntryHolder IndexManager
    IndexManagerAutoCommitPolicy ISOLatin LogEntry MappingInfo NscBuilder PassiveObject
    ProcessorScheduler ProfMonitor ProfMonitorEntry RcCounter RcCounterElement RcQueue
    RcQueueElement RcQueueEntry RcQueueSessionComponent RedoLog Repository SelectBlock Semaphore
    SharedQueue SoftReference SUnitDelay SUnitNameResolver TimeZone TimeZoneInfo
    TimeZoneTransition TransactionBoundaryDefaultPolicy UserSecurityData VariableContext Locale
    GsHostProcess GsTsExternalSession GsExternalSession GsIndexSpec GsQuery GsQueryPredicate
    IcuCollator IcuLocale IcuBreakIterator GsObjectInventory GsBitmap CHeap
AbstractCollisionBucket: CollisionBucket
CollisionBucket: IdentityCollisionBucket SoftCollisionBucket CanonStringBucket DepListBucket
    RcCollisionBucket
IdentityCollisionBucket: IdentitySoftCollisionBucket
AbstractUserProfileSet: UserProfileSet
Error: AlmostOutOfMemory AlmostOutOfStack CannotReturn EOFError FloatingPointError IOError
    NameError SocketError UserDefinedError LockError ImproperOperation
Association: SymbolAssociation
Collection: UnorderedCollection
UnorderedCollection: Bag IdentityBag Set
IdentityBag: IdentitySet RcIdentityBag
IdentitySet: ClassSet SymbolSet StringPairSet
BasicSortNode: SortNode
SortNode: SortBlockNode
BtreeNode: BtreeBasicInteriorNode BtreeBasicLeafNode IdentityBtreeNode
BtreeBasicInteriorNode: BtreeInteriorNode RcBtreeBasicInteriorNode
BtreeBasicLeafNode: BtreeLeafNode RcBtreeBasicLeafNode
BtreeInteriorNode: RcBtreeInteriorNode
BtreeLeafNode: RcBtreeLeafNode
BtreeComparisonForCompare: BtreeComparisonForSort
BtreeQuerySpec: BtreeComparisonQuerySpec
BtreeComparisonQuerySpec: BtreeRangeComparisonQuerySpec
Stream: BtreeReadStream
BtreeReadStream: RangeIndexReadStream
Bag: BucketValueBag
AbstractDictionary: CanonStringDict KeyValueDictionary
CanonStringDict: CanonSymbolDict
ByteArray: CBuffer CByteArray TraversalBuffer
Array: ClassHistory ClusterBucketArray PathTerm DependencyList DepListTable
    GsObjectSecurityPolicySet IndexList InvariantArray QueryExecuter RcIndexBucket
    RcQueueRemovalSeqNumbers
PathEvaluator: SetValuedPathEvaluator
PathTerm: ConstrainedPathTerm SetValuedPathTerm
Magnitude: DateTime Date Time DateAndTimeANSI Duration
DateAndTimeANSI: DateAndTime
Number: DecimalFloat
CharacterCollection: DoubleByteString QuadByteString MultiByteString Unicode32
DoubleByteString: DoubleByteSymbol
QuadByteString: QuadByteSymbol
String: Unicode7 InvariantString
EqualityIndexQueryEvaluator: IdentityIndexQueryEvaluator
ExecBlock: ExecBlock0 ExecBlock1 ExecBlock2 ExecBlock3 ExecBlock4 ExecBlock5 ExecBlockN
KeyValueDictionary: IdentityKeyValueDictionary IntegerKeyValueDictionary
    StringKeyValueDictionary KeySoftValueDictionary RcKeyValueDictionary
IdentityKeyValueDictionary: FastIdentityKeyValueDictionary IdentityDictionary
    SymbolKeyValueDictionary GsMethodDictionary
KeySoftValueDictionary: IdentityKeySoftValueDictionary
GsCompilerIRNode: GsComArrayBuilderNode GsComAssignmentNode GsComBlockNode GsComCascadeNode
    GsComGotoNode GsComLabelNode GsComLiteralNode GsComLitLeaf GsComLoopNode GsComMethNode
    GsComPathNode GsComReturnNode GsComSelectorLeaf GsComSendNode GsComStatementsNode
    GsComTermNode GsComVariableNode GsComVarLeaf
GsMethodDictionary: GsSessionMethodDictionary
IdentityIndex: RangeEqualityIndex
RangeEqualityIndex: RcRangeEqualityIndex
WriteStream: IndentingStream PrintStream ReadWriteStream
SequenceableCollection: Interval
RcIndexBucket: RcIndexBucketWithCache
PositionableStream: ReadStream
TestCase: ResumableTestFailureTestCase SimpleTestResourceTestCase SUnitTest
SymbolKeyValueDictionary: SessionTemps
TestResource: SimpleTestResource
SocketError: SocketErrorEBADF SocketErrorECONNRESET SocketErrorENOTCONN SocketErrorEPIPE
Notification: SystemLoginNotification
Fraction: SmallFraction
BinaryFloat: SmallFloat
Date: SmallDate
Time: SmallTime
DateAndTime: SmallDateAndTime
ScaledDecimal: SmallScaledDecimal
GsSocket: GsSecureSocket GsSignalingSocket
Behavior: ObsoleteMetaclass
GsIndexSpec: GsEqualityIndexSpec GsIdentityIndexSpec
CFunction: CCallout CCallin
"""


def realClasses():
    """
    C{[(name, superclassName)]}, each superclass before its subclasses
    when it is in the table too.
    """
    pairs, superclass = [], None
    for line in TABLE.strip().splitlines():
        if not line.startswith(" "):
            superclass, _, line = line.partition(":")
        pairs.extend((name, superclass) for name in line.split())
    defined = {name for name, _ in pairs}
    ordered, done = [], set()

    def place(name, parent):
        if name in done:
            return
        if parent in defined and parent not in done:
            place(parent, dict(pairs)[parent])
        done.add(name)
        ordered.append((name, parent))

    for name, parent in pairs:
        place(name, parent)
    return ordered
